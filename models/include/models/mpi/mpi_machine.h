#pragma once
// What MPI runs on: hosts (cores and a per-core compute rate) and the route of a message between two hosts
// as fair-share resources with a latency. Two machines implement it: a SimGrid XML platform
// (simgrid_platform.h) and an hpcsim cluster (fabric_machine.h), whose routes are the ClusterFabric's.
#include <limits>
#include <string>
#include <vector>

#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

namespace hpcsim {

struct MpiRoute {
  std::vector<ResourceId> forward;  // resources the data crosses
  std::vector<ResourceId> reverse;  // resources acknowledgements cross (the route back)
  double latency_s = 0;             // one-way latency before any size factor
  double bandwidth = std::numeric_limits<double>::infinity();  // smallest bandwidth on the route, bytes/s
  double cap = std::numeric_limits<double>::infinity();        // per-flow limit of unshared (fat-pipe) links
  double inverse_bandwidth_sum = 0;  // sum over the route of 1 / bandwidth (SimGrid's weight-S penalty)
};

class MpiMachine {
 public:
  virtual ~MpiMachine() = default;
  virtual int hosts() const = 0;
  virtual const std::string& host_name(int host) const = 0;
  virtual double host_speed(int host) const = 0;  // flop/s of one core
  virtual int host_cores(int host) const = 0;
  // The route of a message from host `from` to host `to` (from == to: inside the host). The reference
  // stays valid while the machine lives. std::invalid_argument when the machine has no such route.
  virtual const MpiRoute& route(int from, int to) = 0;
  virtual Simulator& sim() = 0;
  virtual FairShare& fair_share() = 0;
};

}  // namespace hpcsim

#pragma once
// An hpcsim cluster as an MpiMachine: one host per node, its cores and per-core FP64 peak from the node
// spec, messages between nodes on the cluster's ClusterFabric (NIC ports and the topology's switch links,
// routed as the network spec routes; latency = the spec's software latency + switch hops), messages
// inside a node through shared memory (one copy: a per-node resource at half the node's memory
// bandwidth, plus shm_latency_s). The fabric is built with one host-memory endpoint per node (the node
// spec's GPUs and PCIe tree are not on a host-to-host MPI path).
#include <memory>

#include "models/mpi/mpi_machine.h"
#include "models/mpi/shm_latency.h"
#include "models/platform/cluster_config.h"

namespace hpcsim {

class FabricMachine final : public MpiMachine {
 public:
  // The shared-memory latency both MPI back ends use (shm_latency.h, with its source).
  static constexpr double kDefaultShmLatency = kShmLatencyS;
  // std::invalid_argument when the node spec has no CPU cores or FP64 rate, or as ClusterFabric.
  explicit FabricMachine(const ClusterConfig& cluster, double shm_latency_s = kDefaultShmLatency);
  ~FabricMachine() override;
  int hosts() const override;
  const std::string& host_name(int host) const override;
  double host_speed(int host) const override;
  int host_cores(int host) const override;
  const MpiRoute& route(int from, int to) override;
  Simulator& sim() override;
  FairShare& fair_share() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpcsim

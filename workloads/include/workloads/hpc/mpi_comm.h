#pragma once
// What an MPI application model asks of the machine's message passing: the time of one point-to-point
// message and of a small all-reduce, between ranks on one node or on different nodes, while `sharing`
// ranks of each node send at once. HPL (hpl_model.h) times its panel broadcasts, row swaps and pivot
// searches through this interface only. Two back ends: AnalyticMpiComm (below) and FabricMpiComm
// (fabric_mpi_comm.h: the messages run on MpiWorld over the cluster's fair-share fabric).
#include "models/platform/cluster_config.h"

namespace hpcsim {

class MpiComm {
 public:
  virtual ~MpiComm() = default;
  // One message of `bytes` from one rank to another; `same_node`: through shared memory.
  virtual double message_s(double bytes, bool same_node, int sharing) const = 0;
  // An all-reduce of `bytes` over `ranks` ranks on different nodes (recursive doubling: log2 rounds).
  virtual double allreduce_s(double bytes, int ranks, int sharing) const = 0;
};

// The analytic back end: LogGP-like costs from the cluster's specs. Between nodes, a message costs the
// network's software latency plus a switch latency per switch on the route between two nodes of the
// topology (the route from the first node to the one half the cluster away), then its bytes at the NICs'
// payload bandwidth shared by the node's `sharing` sending ranks. Inside a node, shared memory: a copy
// at half a socket's STREAM bandwidth (read and write) after models/mpi/shm_latency.h's latency (0.5 us,
// Open MPI's vader on one socket, sourced there).
class AnalyticMpiComm final : public MpiComm {
 public:
  explicit AnalyticMpiComm(const ClusterConfig& cluster);
  double message_s(double bytes, bool same_node, int sharing) const override;
  double allreduce_s(double bytes, int ranks, int sharing) const override;

  double network_latency_s() const { return latency_s_; }
  double node_bandwidth() const { return node_bandwidth_; }

 private:
  double latency_s_ = 0;
  double node_bandwidth_ = 0;  // bytes/s out of one node, all NICs
  double shm_latency_s_ = 0;
  double shm_bandwidth_ = 0;
};

}  // namespace hpcsim

#pragma once
// The links of a cluster as fair-share resources: each GPU's port into its node's GPU interconnect and
// each NIC port, one resource per direction, joined across nodes by a non-blocking switch. GPUs are
// numbered node-major (rank = node * gpus_per_node + local index).
#include <optional>
#include <vector>

#include "models/network/network_spec.h"
#include "models/node/node_spec.h"
#include "sim-core/fair_share.h"

namespace hpcsim {

struct Hop {
  std::vector<ResourceId> path;
  double latency_s = 0;
};

class ClusterFabric {
 public:
  // `network` is required when nodes > 1 (std::invalid_argument otherwise).
  ClusterFabric(FairShare& fair_share, const NodeSpec& node, int nodes, int gpus_per_node,
                std::optional<NetworkSpec> network);

  int gpus() const { return nodes_ * gpus_per_node_; }
  int nodes() const { return nodes_; }
  int gpus_per_node() const { return gpus_per_node_; }
  // NIC ports each node can drive in parallel (1 on a single node: no NIC is used).
  int rails() const;
  // The resources and latency of one message from GPU `from` to GPU `to`; `rail` picks the NIC port
  // (modulo the NIC count) when the two GPUs are on different nodes.
  Hop route(int from, int to, int rail) const;

 private:
  int nodes_;
  int gpus_per_node_;
  GpuLinkSpec gpu_link_;
  std::optional<NetworkSpec> network_;
  int nics_;
  std::vector<ResourceId> gpu_out_, gpu_in_;  // per GPU
  std::vector<ResourceId> nic_out_, nic_in_;  // per node * nics
};

}  // namespace hpcsim

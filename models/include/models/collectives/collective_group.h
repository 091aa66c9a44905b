#pragma once
// The GPUs a collective runs over, in rank order, and the node each sits on.
#include <vector>

#include "models/network/cluster_fabric.h"

namespace hpcsim {

class CollectiveGroup {
 public:
  // Every GPU of the fabric, rank = GPU id.
  static CollectiveGroup whole(const ClusterFabric& fabric);
  // The first `ranks` GPUs in node-major order (std::invalid_argument unless 1..fabric.gpus()).
  static CollectiveGroup first(const ClusterFabric& fabric, int ranks);
  // These GPUs in this rank order (a data-parallel group of a hybrid-parallel job, say): std::invalid_argument
  // for an empty list, a GPU outside the fabric or a repeated GPU.
  static CollectiveGroup of(const ClusterFabric& fabric, const std::vector<int>& gpus);

  int size() const { return static_cast<int>(gpus_.size()); }
  int gpu(int rank) const { return gpus_[rank]; }
  // Index of the rank's node among the group's nodes (0..nodes()-1) and its place inside that node.
  int node(int rank) const { return node_[rank]; }
  int local(int rank) const { return local_[rank]; }
  int nodes() const { return static_cast<int>(members_.size()); }
  // The ranks on one of the group's nodes, in rank order.
  const std::vector<int>& members(int node) const { return members_[node]; }
  // True when every node holds the same number of ranks.
  bool uniform() const;
  // NIC rails (channels) a message leaving a node can use: one per NIC beside the group's GPUs when the
  // group spans nodes, else 1. NCCL gives each channel the network device local to its GPU
  // (ncclTopoGetLocalNet), so a group holding a few GPUs of a node uses their NICs, not the node's others.
  int rails() const { return rails_; }
  // The fabric NIC (ClusterFabric's rail index) channel `rail` leaves and enters a node through.
  int nic(int rail) const { return nics_.empty() ? rail : nics_[static_cast<std::size_t>(rail) % nics_.size()]; }
  // The rail a rank's own traffic leaves on: the channel of its GPU's own NIC, so a strided group (every
  // other GPU) still uses its own NICs.
  int home_rail(int rank) const { return home_rail_[rank]; }
  // The local GPU indices ring channel c visits inside each node: it enters on the GPU that reaches the
  // channel's NIC most directly and leaves from the one after it, so no ring crosses the CPU root complex
  // to reach its NIC and no two rings enter (or leave) through the same GPU while another is free.
  const std::vector<int>& ring_locals(int channel) const { return ring_locals_[channel]; }
  // NVLink SHARP (the nvls algorithm): the fraction of its NVSwitch ports' rate an in-switch all-reduce
  // reaches when the whole group sits on one node's NVSwitch fabric of GPUs that support it; 0 otherwise.
  double nvls_port_fraction() const { return nvls_port_fraction_; }

 private:
  std::vector<int> gpus_, node_, local_, home_rail_;
  std::vector<int> nics_;  // per channel: its NIC, ascending
  std::vector<std::vector<int>> members_;
  std::vector<std::vector<int>> ring_locals_;
  int rails_ = 1;
  double nvls_port_fraction_ = 0;

  void plan_rings(const ClusterFabric& fabric);
};

}  // namespace hpcsim

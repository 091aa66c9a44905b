#pragma once
// The links of a cluster as fair-share resources, one per direction: inside a node the GPUs' NVSwitch
// ports, NVLink pairs or PCIe links and PCIe switch uplinks; between nodes each NIC port (the cable to its
// switch) and each switch-to-switch link of the topology (added when a route first crosses it: the core of
// a large fat-tree is mostly idle under a collective, and resources cost memory). A message is one flow over its route's resources
// (sharing falls out of the solver); its latency is the software overhead plus the switch hops. GPUs are
// numbered node-major (rank = node * gpus_per_node + local index).
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/network/network_spec.h"
#include "models/network/topology.h"
#include "models/node/node_spec.h"
#include "sim-core/fair_share.h"

namespace hpcsim {

struct Hop {
  std::vector<ResourceId> path;
  double latency_s = 0;
  double bandwidth = 0;     // the smallest capacity on the path, bytes/s (what one flow alone gets)
  bool inter_node = false;  // leaves the node through a NIC
};

class ClusterFabric {
 public:
  // `network` is required when nodes > 1 (std::invalid_argument otherwise); the default topology is a
  // crossbar (one non-blocking switch). A topology that cannot hold the nodes throws as Topology::build.
  ClusterFabric(FairShare& fair_share, const NodeSpec& node, int nodes, int gpus_per_node,
                std::optional<NetworkSpec> network, const TopologySpec& topology = {});

  int gpus() const { return nodes_ * gpus_per_node_; }
  int nodes() const { return nodes_; }
  int gpus_per_node() const { return gpus_per_node_; }
  const NodeSpec& node() const { return node_; }
  int node_of(int gpu) const { return gpu / gpus_per_node_; }
  // NIC ports each node can drive in parallel (1 on a single node: no NIC is used).
  int rails() const;
  // The NIC a route on `rail` leaves through, and the first used GPU on that NIC's PCIe switch (the GPU
  // that reaches it without crossing the CPU root complex; rail % gpus_per_node when there is no tree).
  int nic_of_rail(int rail) const { return rail % nics_; }
  int gpu_near_nic(int nic) const;
  // The NICs a GPU (its index in the node) sends through: its share of the node's NICs in order (NIC n
  // beside GPU n on rail-per-GPU nodes; a GPU with several NICs, or several GPUs sharing one).
  std::vector<int> nics_near_gpu(int local_gpu) const;
  // The resources and latency of one message from GPU `from` to GPU `to`. Between nodes `rail` picks the
  // NIC (modulo the NIC count) on both ends; the GPU-to-NIC PCIe legs are part of the path when the node
  // spec has a PCIe tree, so a GPU far from the NIC shares the root complex. Routes are cached: the
  // reference stays valid as long as the fabric (a collective step routes thousands without copying).
  const Hop& route(int from, int to, int rail) const;
  // As route(), but a route not cached yet is computed into `scratch` and not kept (the reference is to
  // the cached route or to `scratch`): for one-off sweeps over many pairs, such as the selector's
  // estimate of an all-pairs algorithm, where a million cached routes would outweigh the simulation.
  const Hop& route_once(int from, int to, int rail, Hop& scratch) const;
  const Topology* topology() const { return topology_ ? &*topology_ : nullptr; }

 private:
  ResourceId add(double capacity, const std::string& name) const;
  ResourceId link_resource(int directed_link) const;
  void add_gpu_legs(Hop& hop, int local_gpu, int nic, bool outbound, int node) const;
  Hop intra_node(int node, int a, int b) const;
  Hop compute_route(int from, int to, int rail) const;
  Hop complete_route(int from, int to, int rail) const;  // compute_route plus the bottleneck bandwidth
  std::uint64_t route_key(int from, int to, int& rail) const;  // validates; normalises rail
  double capacity(ResourceId id) const { return capacity_[id - first_]; }

  FairShare& fs_;
  NodeSpec node_;
  int nodes_;
  int gpus_per_node_;
  std::optional<NetworkSpec> network_;
  int nics_;
  std::optional<Topology> topology_;
  mutable ResourceId first_ = 0;
  mutable std::vector<double> capacity_;          // of the resources this fabric added, by id - first_
  std::vector<ResourceId> gpu_out_, gpu_in_;      // nvswitch ports, per GPU
  std::vector<ResourceId> pair_;                  // nvlink: per node * G * G (a -> b), or unused
  std::vector<int> via_;                          // nvlink: next GPU from a towards b (G * G)
  std::vector<ResourceId> pcie_up_, pcie_down_;   // per GPU
  std::vector<ResourceId> uplink_up_, uplink_down_;  // per node * PCIe switch
  std::vector<ResourceId> nic_out_, nic_in_;      // per node * nics
  mutable std::vector<ResourceId> link_res_;      // per directed topology link; kNoLink until first used
  mutable std::unordered_map<std::uint64_t, Hop> cache_;
  mutable std::vector<int> scratch_;
};

}  // namespace hpcsim

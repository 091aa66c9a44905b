#pragma once
// The shape of a job's placement on a cluster's leaf switches, as a memo key for its predicted run time.
//
// A job's ranks go leaf by leaf: the leaves holding more of its nodes first (ties: the lower leaf), its
// nodes in ascending order under each (a launcher's host list grouped by switch, so that NCCL's rings
// cross each leaf's uplinks once each way). The shape is then the job's node counts per leaf in that
// order (descending).
//
// Why the shape is an exact key where it is used (symmetric() true): on a crossbar every placement of n
// nodes is the same. On a 2-level fat tree (plain or rail-optimized) every leaf links once to every spine
// with links of one speed, so any permutation of leaves (with their nodes) is an automorphism of the
// switch graph, and so is any permutation of the nodes under one leaf, provided each node's NIC ports sit
// under its own leaves only, in the same pattern on every node (checked on the built topology: a node
// straddling two leaves that other nodes share breaks it). Two placements of one shape, ranked as above,
// then map onto each other link for link: same capacities, same hop counts, same sharing. The one thing an
// automorphism does not carry over is which spine ECMP picks for each flow (a hash of the platform's GPU
// numbers, standing in for a switch's hash of the packet headers), so a placement is timed on the
// canonical placement of its shape (its leaves renumbered to the lowest, fullest-first): the prediction is
// a function of the shape by construction, and equal to the exact one up to those ECMP draws.
// Elsewhere (3-level fat trees, where pods matter; dragonfly; torus; edge lists) the key is the job's
// node list in rank order, and the job is timed on its own nodes.
#include <vector>

#include "models/platform/cluster_config.h"

namespace hpcsim {

class PlacementShapes {
 public:
  // Throws as Topology::build when the topology cannot hold the cluster.
  explicit PlacementShapes(const ClusterConfig& cluster);

  const std::vector<int>& node_leaf() const { return node_leaf_; }
  // Whether the per-leaf counts are an exact key on this cluster (see above).
  bool symmetric() const { return symmetric_; }
  // The nodes in rank order (std::invalid_argument for a node outside the cluster or listed twice).
  std::vector<int> rank_order(const std::vector<int>& nodes) const;
  // The memo key: the per-leaf counts in rank order when symmetric, else the nodes in rank order.
  std::vector<int> key(const std::vector<int>& nodes) const;
  // The nodes a key is timed on, in rank order: the canonical placement of a shape (its i-th count on the
  // i-th fullest leaf, lowest nodes first), or the node list itself.
  std::vector<int> timed_nodes(const std::vector<int>& key) const;
  // Where the queue's allocator puts n nodes on an empty cluster: under the smallest leaf that holds them
  // all, else over the largest leaves first; in rank order.
  std::vector<int> compact(int nodes) const;

 private:
  std::vector<int> node_leaf_;
  std::vector<std::vector<int>> leaf_nodes_;  // per leaf, its nodes ascending
  std::vector<int> leaves_by_size_;           // leaves, most nodes first (ties: lower leaf)
  bool symmetric_ = false;
};

}  // namespace hpcsim

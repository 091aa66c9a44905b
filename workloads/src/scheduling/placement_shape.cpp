#include "workloads/scheduling/placement_shape.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "models/network/topology.h"

namespace hpcsim {

namespace {

// Whether every node's NIC ports sit under leaves of its own, in the same pattern relative to its first
// port's leaf (placement_shape.h): then leaves (with their nodes) are interchangeable on a 2-level tree.
bool node_aligned(const Topology& topology, int nodes, int nics) {
  std::vector<int> pattern;
  std::map<int, int> owner;  // switch -> the first-port leaf of the nodes under it
  for (int n = 0; n < nodes; ++n) {
    const int base = topology.switch_of(n * nics);
    for (int i = 0; i < nics; ++i) {
      const int sw = topology.switch_of(n * nics + i);
      if (n == 0) pattern.push_back(sw - base);
      if (sw - base != pattern[static_cast<std::size_t>(i)]) return false;
      const auto [it, fresh] = owner.emplace(sw, base);
      if (!fresh && it->second != base) return false;
    }
  }
  return true;
}

}  // namespace

PlacementShapes::PlacementShapes(const ClusterConfig& cluster)
    : node_leaf_(static_cast<std::size_t>(cluster.nodes), 0) {
  const TopologySpec& spec = cluster.topology;
  symmetric_ = true;
  if (cluster.nodes > 1 && spec.kind != TopologyKind::crossbar) {
    const NicSpec& nics = cluster.node.nics;
    const Topology topology =
        Topology::build(spec, cluster.nodes, nics.count, nics.rails > 0 ? nics.rails : nics.count);
    for (int n = 0; n < cluster.nodes; ++n) node_leaf_[static_cast<std::size_t>(n)] = topology.switch_of(n * nics.count);
    const bool two_level_tree =
        (spec.kind == TopologyKind::fat_tree || spec.kind == TopologyKind::rail_optimized) && spec.levels == 2;
    symmetric_ = two_level_tree && node_aligned(topology, cluster.nodes, nics.count);
  }
  leaf_nodes_.resize(static_cast<std::size_t>(*std::max_element(node_leaf_.begin(), node_leaf_.end())) + 1);
  for (int n = 0; n < cluster.nodes; ++n) leaf_nodes_[static_cast<std::size_t>(node_leaf_[static_cast<std::size_t>(n)])].push_back(n);
  for (int leaf = 0; leaf < static_cast<int>(leaf_nodes_.size()); ++leaf) {
    if (!leaf_nodes_[static_cast<std::size_t>(leaf)].empty()) leaves_by_size_.push_back(leaf);
  }
  std::stable_sort(leaves_by_size_.begin(), leaves_by_size_.end(), [&](int a, int b) {
    return leaf_nodes_[static_cast<std::size_t>(a)].size() > leaf_nodes_[static_cast<std::size_t>(b)].size();
  });
}

std::vector<int> PlacementShapes::rank_order(const std::vector<int>& nodes) const {
  const int total = static_cast<int>(node_leaf_.size());
  std::vector<int> sorted = nodes;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || sorted[i] >= total) {
      throw std::invalid_argument("node " + std::to_string(sorted[i]) + " outside 0.." + std::to_string(total - 1));
    }
    if (i > 0 && sorted[i] == sorted[i - 1]) throw std::invalid_argument("node " + std::to_string(sorted[i]) + " listed twice");
  }
  std::map<int, int> count;  // leaf -> the job's nodes under it
  for (int n : sorted) ++count[node_leaf_[static_cast<std::size_t>(n)]];
  std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) {
    const int la = node_leaf_[static_cast<std::size_t>(a)], lb = node_leaf_[static_cast<std::size_t>(b)];
    if (la == lb) return false;  // stable: ascending within a leaf
    return count[la] != count[lb] ? count[la] > count[lb] : la < lb;
  });
  return sorted;
}

std::vector<int> PlacementShapes::key(const std::vector<int>& nodes) const {
  std::vector<int> order = rank_order(nodes);
  if (!symmetric_) return order;
  std::vector<int> counts;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const bool same = i > 0 && node_leaf_[static_cast<std::size_t>(order[i])] == node_leaf_[static_cast<std::size_t>(order[i - 1])];
    if (same) ++counts.back();
    else counts.push_back(1);
  }
  return counts;
}

std::vector<int> PlacementShapes::timed_nodes(const std::vector<int>& key) const {
  if (!symmetric_) return key;
  if (key.size() > leaves_by_size_.size()) throw std::invalid_argument("placement shape over more leaves than the cluster has");
  std::vector<int> nodes;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const std::vector<int>& under = leaf_nodes_[static_cast<std::size_t>(leaves_by_size_[i])];
    // Counts descend and leaves are taken fullest first, so a shape the cluster can hold fits here.
    if (key[i] > static_cast<int>(under.size())) throw std::invalid_argument("placement shape does not fit the leaves");
    nodes.insert(nodes.end(), under.begin(), under.begin() + key[i]);
  }
  return nodes;
}

std::vector<int> PlacementShapes::compact(int nodes) const {
  if (nodes < 1 || nodes > static_cast<int>(node_leaf_.size())) {
    throw std::invalid_argument("cannot place " + std::to_string(nodes) + " nodes on " +
                                std::to_string(node_leaf_.size()));
  }
  // Best fit: the smallest leaf that holds them all (leaves_by_size_ is fullest first).
  for (auto it = leaves_by_size_.rbegin(); it != leaves_by_size_.rend(); ++it) {
    const std::vector<int>& under = leaf_nodes_[static_cast<std::size_t>(*it)];
    if (static_cast<int>(under.size()) < nodes) continue;
    // Among leaves of that size, the lowest: walk on to the last (lowest) leaf of the same size.
    auto same = it;
    while (std::next(same) != leaves_by_size_.rend() &&
           leaf_nodes_[static_cast<std::size_t>(*std::next(same))].size() == under.size()) {
      ++same;
    }
    const std::vector<int>& pick = leaf_nodes_[static_cast<std::size_t>(*same)];
    return std::vector<int>(pick.begin(), pick.begin() + nodes);
  }
  std::vector<int> taken;
  for (int leaf : leaves_by_size_) {
    for (int n : leaf_nodes_[static_cast<std::size_t>(leaf)]) {
      if (static_cast<int>(taken.size()) == nodes) break;
      taken.push_back(n);
    }
  }
  return rank_order(taken);
}

}  // namespace hpcsim

#pragma once
// The free nodes of a partition, grouped by leaf switch, for topology-aware allocation: a job that fits
// under one leaf goes under the fullest leaf that holds it (best fit, so big holes stay whole); a larger
// job takes the leaves with the most free nodes first, so it spans as few leaves as possible. Within a
// leaf the lowest-numbered free nodes go first; ties between leaves go to the lowest leaf index.
// Per leaf a bitmap with a summary word level keeps taking and returning nodes near O(nodes moved).
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace hpcsim {

class NodePool {
 public:
  // The nodes [first_node, first_node + nodes) with the leaf of each node id (node_leaf indexed by node
  // id; empty: one leaf). All free.
  NodePool(int first_node, int nodes, const std::vector<int>& node_leaf);

  int free() const { return free_; }
  int size() const { return static_cast<int>(slot_of_.size()); }
  // `count` free node ids (1 <= count <= free(), else std::invalid_argument).
  std::vector<int> take(int count);
  void give_back(const std::vector<int>& node_ids);

 private:
  struct Leaf {
    std::vector<int> members;             // node ids, ascending
    std::vector<std::uint64_t> words;     // bit k of word w: members[64 w + k] is free
    std::vector<std::uint64_t> summary;   // bit k of summary word s: words[64 s + k] != 0
    int free = 0;
  };
  void take_from(int leaf, int count, std::vector<int>& out);
  void set_free_count(int leaf, int free);

  int first_node_;
  int free_ = 0;
  std::vector<Leaf> leaves_;
  std::vector<std::pair<int, int>> slot_of_;  // per node (id - first_node): (leaf, position)
  std::set<std::pair<int, int>> by_free_;     // (free nodes, leaf) of leaves with free nodes
};

}  // namespace hpcsim

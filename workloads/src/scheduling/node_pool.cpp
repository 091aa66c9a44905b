#include "workloads/scheduling/node_pool.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <map>
#include <stdexcept>
#include <string>

namespace hpcsim {

NodePool::NodePool(int first_node, int nodes, const std::vector<int>& node_leaf) : first_node_(first_node) {
  std::map<int, int> leaf_index;  // switch id -> our leaf, in order of first appearance by switch id
  for (int n = first_node; n < first_node + nodes; ++n) {
    const int sw = node_leaf.empty() ? 0 : node_leaf.at(static_cast<std::size_t>(n));
    leaf_index.emplace(sw, 0);
  }
  int next = 0;
  for (auto& [sw, index] : leaf_index) index = next++;
  leaves_.resize(leaf_index.size());
  slot_of_.resize(static_cast<std::size_t>(nodes));
  for (int n = first_node; n < first_node + nodes; ++n) {
    const int sw = node_leaf.empty() ? 0 : node_leaf[static_cast<std::size_t>(n)];
    const int leaf = leaf_index.at(sw);
    Leaf& l = leaves_[static_cast<std::size_t>(leaf)];
    slot_of_[static_cast<std::size_t>(n - first_node)] = {leaf, static_cast<int>(l.members.size())};
    l.members.push_back(n);
  }
  for (std::size_t i = 0; i < leaves_.size(); ++i) {
    Leaf& l = leaves_[i];
    const std::size_t m = l.members.size();
    l.words.assign((m + 63) / 64, ~std::uint64_t{0});
    if (m % 64 != 0) l.words.back() = (std::uint64_t{1} << (m % 64)) - 1;
    l.summary.assign((l.words.size() + 63) / 64, ~std::uint64_t{0});
    if (l.words.size() % 64 != 0) l.summary.back() = (std::uint64_t{1} << (l.words.size() % 64)) - 1;
    l.free = static_cast<int>(m);
    by_free_.emplace(l.free, static_cast<int>(i));
  }
  free_ = nodes;
}

void NodePool::set_free_count(int leaf, int free) {
  Leaf& l = leaves_[static_cast<std::size_t>(leaf)];
  if (l.free > 0) by_free_.erase({l.free, leaf});
  l.free = free;
  if (free > 0) by_free_.emplace(free, leaf);
}

void NodePool::take_from(int leaf, int count, std::vector<int>& out) {
  Leaf& l = leaves_[static_cast<std::size_t>(leaf)];
  int left = count;
  for (std::size_t s = 0; left > 0 && s < l.summary.size(); ++s) {
    while (left > 0 && l.summary[s] != 0) {
      const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(l.summary[s]));
      std::uint64_t& word = l.words[w];
      while (left > 0 && word != 0) {
        const int bit = std::countr_zero(word);
        word &= word - 1;
        out.push_back(l.members[w * 64 + static_cast<std::size_t>(bit)]);
        --left;
      }
      if (word == 0) l.summary[s] &= ~(std::uint64_t{1} << (w % 64));
    }
  }
  set_free_count(leaf, l.free - count);
}

std::vector<int> NodePool::take(int count) {
  if (count < 1 || count > free_) {
    throw std::invalid_argument("cannot take " + std::to_string(count) + " of " + std::to_string(free_) + " free nodes");
  }
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(count));
  const auto fit = by_free_.lower_bound({count, INT_MIN});
  if (fit != by_free_.end()) {
    take_from(fit->second, count, out);
  } else {
    int left = count;
    while (left > 0) {
      const int most = std::prev(by_free_.end())->first;
      const int leaf = by_free_.lower_bound({most, INT_MIN})->second;
      const int n = std::min(left, most);
      take_from(leaf, n, out);
      left -= n;
    }
  }
  free_ -= count;
  return out;
}

void NodePool::give_back(const std::vector<int>& node_ids) {
  // Leaves' free counts are updated once per leaf touched, not once per node.
  std::vector<std::pair<int, int>> touched;  // (leaf, nodes returned), in order of first touch
  for (const int n : node_ids) {
    const auto [leaf, pos] = slot_of_.at(static_cast<std::size_t>(n - first_node_));
    Leaf& l = leaves_[static_cast<std::size_t>(leaf)];
    const std::size_t w = static_cast<std::size_t>(pos) / 64;
    const std::uint64_t bit = std::uint64_t{1} << (pos % 64);
    if (l.words[w] & bit) throw std::invalid_argument("node " + std::to_string(n) + " is already free");
    l.words[w] |= bit;
    l.summary[w / 64] |= std::uint64_t{1} << (w % 64);
    if (touched.empty() || touched.back().first != leaf) {
      auto it = std::find_if(touched.begin(), touched.end(), [leaf](const auto& t) { return t.first == leaf; });
      if (it == touched.end()) {
        touched.emplace_back(leaf, 0);
      } else {
        std::iter_swap(it, touched.end() - 1);
      }
    }
    ++touched.back().second;
  }
  for (const auto& [leaf, returned] : touched) set_free_count(leaf, leaves_[static_cast<std::size_t>(leaf)].free + returned);
  free_ += static_cast<int>(node_ids.size());
}

}  // namespace hpcsim

#include "models/collectives/collective_group.h"

#include <stdexcept>
#include <string>

namespace hpcsim {

CollectiveGroup CollectiveGroup::whole(const ClusterFabric& fabric) { return first(fabric, fabric.gpus()); }

CollectiveGroup CollectiveGroup::first(const ClusterFabric& fabric, int ranks) {
  if (ranks < 1 || ranks > fabric.gpus()) {
    throw std::invalid_argument("a collective group needs 1.." + std::to_string(fabric.gpus()) + " GPUs, got " +
                                std::to_string(ranks));
  }
  CollectiveGroup g;
  int last_fabric_node = -1;
  for (int rank = 0; rank < ranks; ++rank) {
    const int fabric_node = rank / fabric.gpus_per_node();
    if (fabric_node != last_fabric_node) g.members_.emplace_back();
    last_fabric_node = fabric_node;
    g.gpus_.push_back(rank);
    g.node_.push_back(g.nodes() - 1);
    g.local_.push_back(static_cast<int>(g.members_.back().size()));
    g.members_.back().push_back(rank);
  }
  g.rails_ = g.nodes() > 1 ? fabric.rails() : 1;
  g.plan_rings(fabric);
  return g;
}

void CollectiveGroup::plan_rings(const ClusterFabric& fabric) {
  const int g = static_cast<int>(members_.front().size());
  std::vector<int> identity(g);
  for (int l = 0; l < g; ++l) identity[l] = l;
  if (nodes() == 1) {
    ring_locals_.assign(1, identity);
    return;
  }
  // Greedy over channels: the entry (exit) GPU is the unused one with the shortest route from (to) the
  // next node's GPU 0 on the channel's rail; lowest index on ties. Node 0 stands for every node.
  const int peer = fabric.gpus_per_node();
  auto path_length = [&](int from, int to, int rail) { return fabric.route(from, to, rail).path.size(); };
  std::vector<bool> entered(g, false), left(g, false);
  for (int c = 0; c < rails_; ++c) {
    auto pick = [&](std::vector<bool>& used, int exclude, bool entry) {
      int best = -1;
      std::size_t best_length = 0;
      for (int round = 0; round < 2 && best < 0; ++round) {  // all used: reuse, as a last resort
        for (int l = 0; l < g; ++l) {
          if (l == exclude || (round == 0 && used[l])) continue;
          const std::size_t len = entry ? path_length(peer, l, c) : path_length(l, peer, c);
          if (best < 0 || len < best_length) {
            best = l;
            best_length = len;
          }
        }
      }
      if (best < 0) best = 0;  // one GPU per node: it both enters and leaves
      used[best] = true;
      return best;
    };
    const int in = pick(entered, -1, true);
    const int out = g > 1 ? pick(left, in, false) : in;
    std::vector<int> order{in};
    for (int k = 1; k < g; ++k) {
      const int l = (in + k) % g;
      if (l != out) order.push_back(l);
    }
    if (out != in) order.push_back(out);
    ring_locals_.push_back(std::move(order));
  }
}

bool CollectiveGroup::uniform() const {
  for (const auto& m : members_) {
    if (m.size() != members_.front().size()) return false;
  }
  return true;
}

}  // namespace hpcsim

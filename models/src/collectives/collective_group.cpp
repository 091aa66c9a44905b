#include "models/collectives/collective_group.h"

#include <stdexcept>
#include <string>

#include "models/collectives/nvls.h"

namespace hpcsim {

CollectiveGroup CollectiveGroup::whole(const ClusterFabric& fabric) { return first(fabric, fabric.gpus()); }

CollectiveGroup CollectiveGroup::first(const ClusterFabric& fabric, int ranks) {
  if (ranks < 1 || ranks > fabric.gpus()) {
    throw std::invalid_argument("a collective group needs 1.." + std::to_string(fabric.gpus()) + " GPUs, got " +
                                std::to_string(ranks));
  }
  std::vector<int> gpus(static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) gpus[rank] = rank;
  return of(fabric, gpus);
}

CollectiveGroup CollectiveGroup::of(const ClusterFabric& fabric, const std::vector<int>& gpus) {
  if (gpus.empty()) throw std::invalid_argument("a collective group needs at least one GPU");
  CollectiveGroup g;
  std::vector<int> group_node_of(static_cast<std::size_t>(fabric.nodes()), -1);
  std::vector<bool> seen(static_cast<std::size_t>(fabric.gpus()), false);
  for (int gpu : gpus) {
    if (gpu < 0 || gpu >= fabric.gpus()) {
      throw std::invalid_argument("GPU " + std::to_string(gpu) + " is outside the fabric's 0.." +
                                  std::to_string(fabric.gpus() - 1));
    }
    if (seen[gpu]) throw std::invalid_argument("GPU " + std::to_string(gpu) + " appears twice in a collective group");
    seen[gpu] = true;
    int& node = group_node_of[fabric.node_of(gpu)];
    if (node < 0) {
      node = g.nodes();
      g.members_.emplace_back();
    }
    const int rank = static_cast<int>(g.gpus_.size());
    g.gpus_.push_back(gpu);
    g.node_.push_back(node);
    g.local_.push_back(static_cast<int>(g.members_[node].size()));
    g.members_[node].push_back(rank);
  }
  if (g.nodes() == 1) g.nvls_port_fraction_ = hpcsim::nvls_port_fraction(fabric.node());
  // Channels: the NICs beside the group's GPUs (each local GPU index any node holds), in NIC order; each
  // local index's NICs are looked up once.
  g.rails_ = 1;
  g.home_rail_.assign(g.gpus_.size(), 0);
  if (g.nodes() > 1) {
    const int per_node = fabric.gpus_per_node();
    std::vector<std::vector<int>> near(static_cast<std::size_t>(per_node));
    std::vector<int> channel_of(static_cast<std::size_t>(fabric.rails()), -1);
    for (int gpu : g.gpus_) {
      std::vector<int>& nics = near[static_cast<std::size_t>(gpu % per_node)];
      if (!nics.empty()) continue;
      nics = fabric.nics_near_gpu(gpu % per_node);
      for (int nic : nics) channel_of[static_cast<std::size_t>(nic)] = 0;
    }
    for (std::size_t nic = 0; nic < channel_of.size(); ++nic) {
      if (channel_of[nic] < 0) continue;
      channel_of[nic] = static_cast<int>(g.nics_.size());
      g.nics_.push_back(static_cast<int>(nic));
    }
    g.rails_ = static_cast<int>(g.nics_.size());
    for (std::size_t r = 0; r < g.gpus_.size(); ++r) {
      g.home_rail_[r] = channel_of[static_cast<std::size_t>(near[static_cast<std::size_t>(g.gpus_[r] % per_node)].front())];
    }
  }
  g.plan_rings(fabric);
  return g;
}

void CollectiveGroup::plan_rings(const ClusterFabric& fabric) {
  // The node with the most members (the first of them) stands for every node, so the ring visits every
  // local index some node has: a group whose first node holds fewer GPUs than a later one (a data-parallel
  // group of a layout whose tp does not divide the node, say) would otherwise leave ranks out of the ring.
  std::size_t stand_in = 0;
  for (std::size_t n = 1; n < members_.size(); ++n)
    if (members_[n].size() > members_[stand_in].size()) stand_in = n;
  const int g = static_cast<int>(members_[stand_in].size());
  std::vector<int> identity(g);
  for (int l = 0; l < g; ++l) identity[l] = l;
  if (nodes() == 1) {
    ring_locals_.assign(1, identity);
    return;
  }
  // Greedy over channels: the entry (exit) GPU is the unused one with the shortest route from (to) the
  // next node's GPU 0 on the channel's rail; lowest index on ties.
  // GPU ids: the stand-in node's members, and the next node's first member is the peer.
  const int peer = gpus_[members_[(stand_in + 1) % members_.size()].front()];
  std::vector<int> first_node(g);
  for (int l = 0; l < g; ++l) first_node[l] = gpus_[members_[stand_in][l]];
  auto path_length = [&](int from, int to, int rail) { return fabric.route(from, to, nic(rail)).path.size(); };
  std::vector<bool> entered(g, false), left(g, false);
  for (int c = 0; c < rails_; ++c) {
    auto pick = [&](std::vector<bool>& used, int exclude, bool entry) {
      int best = -1;
      std::size_t best_length = 0;
      for (int round = 0; round < 2 && best < 0; ++round) {  // all used: reuse, as a last resort
        for (int l = 0; l < g; ++l) {
          if (l == exclude || (round == 0 && used[l])) continue;
          const std::size_t len = entry ? path_length(peer, first_node[l], c) : path_length(first_node[l], peer, c);
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

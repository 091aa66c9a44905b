// Hierarchical all-reduce: a ring reduce-scatter inside each node (NVLink), an all-reduce of each
// 1/g slice across nodes by g concurrent rings (local GPU i on rail i), a ring all-gather inside each
// node. Fewer latency-bound steps than one flat ring: 2(g-1) + 2(N-1) instead of 2(gN-1).
#include "schedule_builders.h"

namespace hpcsim::schedules {

CollectiveSchedule hierarchical_allreduce(const CollectiveGroup& group, double bytes) {
  const int nodes = group.nodes();
  const int g = static_cast<int>(group.members(0).size());
  std::vector<std::vector<int>> members;
  for (int k = 0; k < nodes; ++k) members.push_back(group.members(k));
  const double intra_bytes = bytes / g;            // per ring step inside a node
  const double inter_bytes = bytes / g / nodes;    // per ring step across nodes
  std::vector<int> home(static_cast<std::size_t>(group.size()));
  for (int r = 0; r < group.size(); ++r) home[r] = group.home_rail(r);
  // Pattern 0: one step of the intra-node rings (reduce-scatter and all-gather move the same);
  // pattern 1: one step of the inter-node rings.
  auto generate = [members, g, nodes, intra_bytes, inter_bytes, home](int pattern, std::vector<Transfer>& out) {
    for (int k = 0; k < nodes; ++k) {
      for (int l = 0; l < g; ++l) {
        if (pattern == 0) {
          out.push_back(Transfer{members[k][l], members[k][(l + 1) % g], 0, intra_bytes});
        } else {
          out.push_back(Transfer{members[k][l], members[(k + 1) % nodes][l], home[members[k][l]], inter_bytes});
        }
      }
    }
  };
  std::vector<int> steps(g - 1, 0);
  steps.insert(steps.end(), 2 * (nodes - 1), 1);
  steps.insert(steps.end(), g - 1, 0);
  return CollectiveSchedule(2, std::move(steps), generate, static_cast<std::uint64_t>(group.size()));
}

}  // namespace hpcsim::schedules

// Double binary tree (Sanders, Speck, Traeff 2009; NCCL since 2.4): two binary trees over the ranks,
// each carrying half the data, built so that the leaves of one are the inner nodes of the other and
// every rank's links are busy in both. Both are heaps over ranks relative to the root: tree 0 puts
// relative rank h at heap slot h, tree 1 at slot n-h (the root stays the root).
#include "schedule_builders.h"

namespace hpcsim::schedules {

namespace {

int depth_of(int slot) {
  int d = 0;
  while (slot > 0) {
    slot = (slot - 1) / 2;
    ++d;
  }
  return d;
}

struct Trees {
  int n = 0;
  int depth = 0;
  std::vector<int> rank_at[2];  // heap slot -> rank
  std::vector<int> rails;
};

}  // namespace

CollectiveSchedule double_tree(const CollectiveGroup& group, double bytes, const ScheduleOptions& options,
                               TreePass pass) {
  Trees t;
  t.n = group.size();
  t.depth = depth_of(t.n - 1);
  t.rails = own_rails(group);
  for (int slot = 0; slot < t.n; ++slot) {
    t.rank_at[0].push_back((options.root + slot) % t.n);
    t.rank_at[1].push_back(slot == 0 ? options.root : (options.root + t.n - slot) % t.n);
  }
  const int chunks = chunk_count(bytes / 2, options);
  const double chunk = bytes / 2 / chunks;
  const int depth = t.depth;
  // Position p of an upward pass moves chunks from depth D-p to their parents; of a downward pass, from
  // depth p to the children. An all-reduce runs the upward positions, then the downward ones.
  auto at_position = [t, chunk, pass, depth](int p, std::vector<Transfer>& out) {
    const bool up = pass == TreePass::up || (pass == TreePass::up_then_down && p < depth);
    const int level = pass == TreePass::up_then_down && !up ? p - depth : p;
    const int sender_depth = up ? depth - level : level;
    for (int tree = 0; tree < 2; ++tree) {
      const std::vector<int>& rank = t.rank_at[tree];
      const int first = (1 << sender_depth) - 1;
      const int last = std::min(t.n, (1 << (sender_depth + 1)) - 1);
      for (int slot = first; slot < last; ++slot) {
        if (up) {
          const int parent = rank[(slot - 1) / 2];
          out.push_back(Transfer{rank[slot], parent, t.rails[rank[slot]], chunk});
        } else {
          for (int child = 2 * slot + 1; child <= 2 * slot + 2 && child < t.n; ++child) {
            out.push_back(Transfer{rank[slot], rank[child], t.rails[rank[slot]], chunk});
          }
        }
      }
    }
  };
  const int positions = pass == TreePass::up_then_down ? 2 * depth : depth;
  return pipelined(positions, chunks, at_position, 2 * static_cast<std::uint64_t>(t.n));
}

}  // namespace hpcsim::schedules

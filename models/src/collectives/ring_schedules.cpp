// Ring-shaped schedules: NCCL's rings, the pipelined chain of broadcast and reduce, and the shifted
// exchanges of all-to-all.
#include "schedule_builders.h"

namespace hpcsim::schedules {

std::vector<int> ring_order(const CollectiveGroup& group, int channel) {
  std::vector<int> order;
  order.reserve(group.size());
  for (int node = 0; node < group.nodes(); ++node) {
    const std::vector<int>& m = group.members(node);
    for (const int local : group.ring_locals(channel)) {
      if (local < static_cast<int>(m.size())) order.push_back(m[local]);
    }
  }
  return order;
}

CollectiveSchedule ring(const CollectiveGroup& group, int steps, double bytes_per_rank) {
  const int n = group.size();
  const int channels = group.rails();
  std::vector<std::vector<int>> orders;
  for (int c = 0; c < channels; ++c) orders.push_back(ring_order(group, c));
  const double bytes = bytes_per_rank / channels;
  auto generate = [orders, n, bytes](int, std::vector<Transfer>& out) {
    for (int c = 0; c < static_cast<int>(orders.size()); ++c) {
      for (int i = 0; i < n; ++i) out.push_back(Transfer{orders[c][i], orders[c][(i + 1) % n], c, bytes});
    }
  };
  return CollectiveSchedule(1, std::vector<int>(steps, 0), generate, static_cast<std::uint64_t>(n) * channels);
}

CollectiveSchedule pairwise(const CollectiveGroup& group, double bytes) {
  const int n = group.size();
  std::vector<int> steps;
  for (int k = 0; k + 1 < n; ++k) steps.push_back(k);
  auto generate = [rails = own_rails(group), n, bytes](int pattern, std::vector<Transfer>& out) {
    const int shift = pattern + 1;
    for (int r = 0; r < n; ++r) out.push_back(Transfer{r, (r + shift) % n, rails[r], bytes});
  };
  return CollectiveSchedule(n - 1, std::move(steps), generate, n);
}

CollectiveSchedule chain(const CollectiveGroup& group, double bytes, const ScheduleOptions& options, bool reduce) {
  const int n = group.size();
  const int channels = group.rails();
  std::vector<std::vector<int>> chains;
  for (int c = 0; c < channels; ++c) {
    std::vector<int> order = ring_order(group, c);
    std::vector<int> from_root;
    std::size_t start = 0;
    while (order[start] != options.root) ++start;
    for (int i = 0; i < n; ++i) from_root.push_back(order[(start + i) % n]);
    chains.push_back(std::move(from_root));
  }
  const double per_channel = bytes / channels;
  const int chunks = chunk_count(per_channel, options);
  const double chunk = per_channel / chunks;
  // Broadcast position p is the hop chain[p] -> chain[p+1]; a reduction runs the hops from the far end.
  auto at_position = [chains, n, chunk, reduce](int p, std::vector<Transfer>& out) {
    for (int c = 0; c < static_cast<int>(chains.size()); ++c) {
      const std::vector<int>& ch = chains[c];
      if (reduce) {
        out.push_back(Transfer{ch[n - 1 - p], ch[n - 2 - p], c, chunk});
      } else {
        out.push_back(Transfer{ch[p], ch[p + 1], c, chunk});
      }
    }
  };
  return pipelined(n - 1, chunks, at_position, static_cast<std::uint64_t>(n) * channels);
}

}  // namespace hpcsim::schedules

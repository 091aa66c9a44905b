#include "report/replay_timeline.h"

#include <algorithm>

#include "report/trace_writer.h"

namespace hpcsim {

std::string replay_trace_json(const ReplayResult& r, const ReplaySummary& s) {
  std::vector<const RankSegment*> order;
  order.reserve(r.timeline.size());
  for (const RankSegment& seg : r.timeline) order.push_back(&seg);
  // Lanes appear in the order of their first event: rank order, then time.
  std::stable_sort(order.begin(), order.end(), [](const RankSegment* a, const RankSegment* b) {
    return a->rank != b->rank ? a->rank < b->rank : a->start_s < b->start_s;
  });
  std::vector<TimelineOp> ops;
  ops.reserve(order.size() + 1);
  for (const RankSegment* seg : order) {
    const std::string host = static_cast<std::size_t>(seg->rank) < s.rank_hosts.size() ? s.rank_hosts[seg->rank] : "";
    const std::string activity(activity_name(seg->activity));
    ops.push_back({activity, "rank " + std::to_string(seg->rank) + (host.empty() ? "" : " (" + host + ")"), activity,
                   seg->start_s, seg->end_s});
  }
  if (r.timeline_dropped > 0)
    ops.push_back({std::to_string(r.timeline_dropped) + " later segments left out (timeline limit)", "notes", "note",
                   r.time_s, r.time_s});
  return chrome_trace_json("replay " + s.trace + " on " + s.platform, ops);
}

}  // namespace hpcsim

#pragma once
// Shared by the batch-queue tests: a job in one line, the schedule's (start, end) pairs, and the queue's
// invariants.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "workloads/scheduling/batch_queue.h"

namespace hpcsim::test {

inline BatchJob job(std::int64_t id, double submit, int nodes, double run, double estimate) {
  return BatchJob{id, submit, run, estimate, nodes};
}

// (start, end) per job, in queue order.
inline std::vector<std::pair<double, double>> times(const std::vector<QueueRun>& runs) {
  std::vector<std::pair<double, double>> out;
  for (const QueueRun& r : runs) out.emplace_back(r.scheduled.start_s, r.scheduled.end_s);
  return out;
}

using Times = std::vector<std::pair<double, double>>;

// No node runs two jobs at once, nobody starts before its submit, every job runs its run time (or is
// killed exactly at its wall-time limit), and with partitions every job runs on its partition's nodes.
inline void check_invariants(const std::vector<QueueRun>& runs, int nodes, const std::vector<Partition>& partitions = {}) {
  std::map<int, std::vector<std::pair<double, double>>> by_node;
  for (const QueueRun& r : runs) {
    const ScheduledJob& s = r.scheduled;
    REQUIRE(s.start_s >= s.job.submit_s);
    REQUIRE(static_cast<int>(r.node_ids.size()) == s.job.nodes);
    if (s.job.kind < 0) REQUIRE(s.run_s == s.job.run_s);
    const double length = std::min(s.run_s, s.job.estimate_s);
    if (r.cancelled) {
      REQUIRE(s.end_s < s.start_s + length);
    } else {
      REQUIRE(s.end_s == s.start_s + length);
    }
    for (const PreemptedRun& earlier : r.requeued_runs) {
      REQUIRE(earlier.start_s >= s.job.submit_s);
      REQUIRE(earlier.end_s <= s.start_s);
      for (const int n : earlier.node_ids) by_node[n].emplace_back(earlier.start_s, earlier.end_s);
    }
    REQUIRE(s.killed == (!r.cancelled && s.run_s > s.job.estimate_s));
    for (const int n : r.node_ids) {
      REQUIRE(n >= 0);
      REQUIRE(n < nodes);
      if (!partitions.empty()) {
        const Partition& p = partitions.at(static_cast<std::size_t>(s.job.partition));
        REQUIRE(n >= p.first_node);
        REQUIRE(n < p.first_node + p.nodes);
      }
      by_node[n].emplace_back(s.start_s, s.end_s);
    }
  }
  for (auto& [node, intervals] : by_node) {
    std::sort(intervals.begin(), intervals.end());
    for (std::size_t i = 1; i < intervals.size(); ++i) REQUIRE(intervals[i].first >= intervals[i - 1].second);
  }
}

}  // namespace hpcsim::test

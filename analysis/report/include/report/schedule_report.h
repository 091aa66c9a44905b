#pragma once
// What `hpcsim schedule` reports: every job's times and the queue's summary, on the trace's own clock.
//   wait = start - submit; bounded slowdown = max(1, (wait + run) / max(run, 10 s)) (tau = 10 s);
//   makespan = last end - first submit; utilization = busy node-seconds / (nodes x makespan), runs cut
//   short by preemption included; a requeued job's times are those of its last run;
//   p95 wait = the nearest-rank 95th percentile (the ceil(0.95 n)-th smallest wait).
#include <cstdint>
#include <string>
#include <vector>

#include "store/metric.h"
#include "workloads/scheduling/batch_queue.h"

namespace hpcsim {

struct ScheduleSummary {
  std::int64_t jobs = 0, skipped = 0;
  double mean_wait_s = 0, p95_wait_s = 0, mean_bounded_slowdown = 0, utilization = 0, makespan_s = 0;
};

ScheduleSummary summarize_schedule(const std::vector<QueueRun>& runs, std::int64_t skipped, int nodes);
// The summary as metrics (store and show), named as the JSON summary's keys.
std::vector<Metric> schedule_metrics(const ScheduleSummary& summary);

// JSON (a contract): {"jobs": [{"id", "submit_s", "start_s", "end_s", "wait_s", "nodes", "partition", "killed",
// "preemptions", "cancelled"}...],
// "summary": {"jobs", "skipped", "mean_wait_s", "p95_wait_s", "mean_bounded_slowdown", "utilization",
// "makespan_s"}}. `partitions` names the queue's partitions by index (a job's job.partition).
std::string schedule_to_json(const std::vector<QueueRun>& runs, const ScheduleSummary& summary,
                             const std::vector<std::string>& partitions);
// The table names each job's partition when the queue has more than one; the CSV always does (last column).
std::string schedule_to_table(const std::vector<QueueRun>& runs, const ScheduleSummary& summary,
                              const std::vector<std::string>& partitions);
std::string schedule_to_csv(const std::vector<QueueRun>& runs, const std::vector<std::string>& partitions);

}  // namespace hpcsim

#pragma once
// `hpcsim schedule` (and the Python module's schedule()): a batch queue over a job list or an SWF trace on
// a machine of N nodes or a described cluster (whose training jobs are timed on it first).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "report/schedule_report.h"
#include "workloads/scheduling/batch_queue.h"

namespace hpcsim {

// The command's inputs, as its flags give them.
struct ScheduleRequest {
  std::string jobs;              // a job list (YAML) or an SWF trace (.swf)
  std::string cluster;           // a YAML file with a cluster: section, or empty with `nodes`
  std::optional<int> nodes;
  std::string policy;            // fcfs, easy, conservative or priority
  std::int64_t max_jobs = 0;     // > 0: only the first N valid jobs
  int cores_per_node = 0;        // > 0: a trace's processors are cores, this many per node
};

// Bad input named by its argument (an unknown policy): a flag the CLI checks itself.
struct ScheduleInputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct ScheduleRun {
  std::vector<QueueRun> runs;
  ScheduleSummary summary;
  int nodes = 0;
  std::vector<std::string> partitions;  // names, by a job's partition index
};

// The queue simulated. `note` hears each note as it arises ("job 7 needs ...: skipped"); `timed` hears
// (training jobs timed, of total) while a cluster's training jobs are timed, `ended` (jobs ended, of all)
// while the queue runs. ConfigError for bad input (including every job skipped).
ScheduleRun run_schedule(const ScheduleRequest& request, const SpecCatalog& catalog,
                         const std::function<void(const std::string&)>& note = {},
                         const std::function<void(std::size_t, std::size_t)>& timed = {},
                         const std::function<void(std::size_t, std::size_t)>& ended = {});

}  // namespace hpcsim

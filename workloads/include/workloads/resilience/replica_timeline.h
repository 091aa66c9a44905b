#pragma once
// One replica of a long run (long_run.h) as a timeline, for a Perfetto / chrome://tracing view (`hpcsim run
// --replica-trace`): the same draws as simulate_long_run_replica, so the timeline is that replica's history.
// Lanes: "job" (compute, checkpoint stalls, detection, spare wait, restart / spare swap / re-queue, restore),
// "failures" (one zero-length op per failure, named by its mode), "checkpoint writes" (asynchronous writes
// running behind the job). Categories: compute, checkpoint, recovery, failure.
#include <cstdint>
#include <vector>

#include "workloads/resilience/long_run.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

// Defined beside the replica in long_run.cpp.
std::vector<TimelineOp> long_run_replica_timeline(const LongRunModel& model, std::uint64_t seed, std::int64_t replica);

}  // namespace hpcsim

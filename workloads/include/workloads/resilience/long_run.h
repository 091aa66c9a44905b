#pragma once
// A whole training run with failures, checkpoints and restarts, as a Monte Carlo over replicas on the exact
// 128-bit time base (sim-core/time.h): weeks to months of job time, every phase an exact picosecond count.
// One replica: the job computes `work` (its failure-free compute time) in segments of `interval` between
// checkpoints; a synchronous checkpoint stops the job for its write, an asynchronous one for a snapshot while
// the write runs behind it (the checkpoint is usable once written). Failures arrive as a Poisson process per
// mode (exponential times, the modes' rates summed, the cause drawn by rate); each rolls the job back to its
// last usable checkpoint and costs detection, a restart (in place; or, when it took nodes out, a hot spare's
// swap, waiting for repaired spares when too few are free and that beats a re-queue, else a re-queue) and the checkpoint's
// restore. A failure during recovery starts recovery again (the job holds its nodes throughout).
// Draws are seeded per replica (sim-core/random.h), so a replica's history does not depend on the others and
// the same seed gives bit-identical results.
#include <cstdint>
#include <string>
#include <vector>

#include "configs/enum_names.h"
#include "sim-core/time.h"

namespace hpcsim {

enum class CheckpointMode { sync, async };
inline constexpr EnumNames<CheckpointMode, 2> kCheckpointModeNames{{{
    {CheckpointMode::sync, "sync"}, {CheckpointMode::async, "async"}}}};

// One failure mode as the job sees it: its rate over all the job's units, and the nodes one failure takes out
// (0: the job restarts in place).
struct JobFailureMode {
  std::string name;
  double rate_per_s = 0;
  int nodes_lost = 0;
};

struct LongRunModel {
  double work_s = 0;      // failure-free compute time (steps x step time)
  double interval_s = 0;  // compute time between checkpoints
  CheckpointMode mode = CheckpointMode::sync;
  double checkpoint_write_s = 0;  // the write (sync: the job waits for it)
  double snapshot_s = 0;          // async: the job's stall while the state is copied out
  double restore_s = 0;           // reading the checkpoint back at restart
  double detection_s = 0;         // from the failure to the decision to restart
  double restart_s = 0;           // restart in place (every rank relaunched on the same nodes)
  double requeue_s = 0;           // nodes lost and no spare: back through the queue onto other nodes
  double spare_swap_s = 0;        // nodes lost, spares free: swapped in and relaunched
  double repair_s = 0;            // a failed node's return to the spare pool
  int spares = 0;                 // hot spare nodes (0: every node loss re-queues)
  std::vector<JobFailureMode> modes;

  double failure_rate_per_s() const;
};

// One replica's run, every phase in exact picoseconds: wall == work + recompute + checkpoint + detection +
// restart + spare_wait + restore.
struct LongRunReplica {
  Time wall, work, recompute, checkpoint, detection, restart, spare_wait, restore;
  std::int64_t checkpoints = 0;
  std::vector<std::int64_t> interruptions;  // by mode, the model's order
};

LongRunReplica simulate_long_run_replica(const LongRunModel& model, std::uint64_t seed, std::int64_t replica);

struct LongRunSummary {
  std::int64_t replicas = 0;
  std::uint64_t seed = 0;
  double mtti_s = 0;  // the job's mean time to interruption, 1 / (sum of the modes' rates)
  std::vector<double> wall_s;  // per replica, in replica order
  double mean_wall_s = 0, stderr_wall_s = 0, p5_wall_s = 0, p50_wall_s = 0, p95_wall_s = 0;
  double ettr = 0;  // work / mean wall: the effective training time ratio
  // Means per replica.
  double recompute_s = 0, checkpoint_s = 0, detection_s = 0, restart_s = 0, spare_wait_s = 0, restore_s = 0;
  double checkpoints = 0;
  double interruptions = 0;
  std::vector<double> interruptions_by_mode;  // the model's order
};

// `replicas` replicas from `seed`, summarized (percentiles nearest-rank).
LongRunSummary simulate_long_run(const LongRunModel& model, std::int64_t replicas, std::uint64_t seed);

// The closed forms for exponential failures (Daly 2006, eq. 13, with failures during recovery): the expected
// wall time of a synchronous run whose recovery always takes recovery_s, and the expected time lost to work
// redone and checkpoint writes cut short. They hold the Monte Carlo to account in the tests.
double expected_wall_time(double work_s, double interval_s, double checkpoint_s, double recovery_s, double rate_per_s);
double expected_lost_time(double work_s, double interval_s, double checkpoint_s, double rate_per_s);

}  // namespace hpcsim

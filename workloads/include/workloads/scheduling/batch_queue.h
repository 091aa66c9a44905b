#pragma once
// A batch queue on a cluster of nodes, simulated on the event engine: jobs arrive at their submit times,
// wait in queue order and run on whole nodes of their partition. Partitions do not share nodes, so each
// has its own queue; the accounts' usage (fair share) is the whole machine's.
//
// Queue order is submit time, then id, except under the priority policy, which orders each pass by the
// multifactor priority (queue_setup.h), highest first, then submit time and id.
// At each instant every job end and every submit at that time is applied first, then one scheduling pass
// runs. A pass starts queue heads while they fit; FCFS stops there. EASY (and priority, below it) then
// gives the blocked head a reservation at the shadow time (the earliest estimated end, start + estimate,
// of running jobs at which the free nodes plus those released by every running job ending by then cover
// the head; the spare is that sum minus the head's need) and scans the rest of the queue once, in order,
// starting each job that fits the free nodes and either ends by its estimate no later than the shadow time
// or needs no more than the spare (which it then uses up). A job ends at start + run time, or is killed at
// start + estimate when it would run longer. Conservative backfilling gives every waiting job, in queue
// order, a reservation at the earliest time its nodes stay free for its whole estimate, given the running
// jobs' estimated ends and the reservations before it, and starts the jobs whose reservation is now; the
// reservations are rebuilt at every pass, so a job ending early only moves them earlier.
// Preemption (priority policy only): a blocked head whose QoS preempts others stops just enough running
// jobs of those levels in its partition, most recently started first, to start now; stopped jobs go back
// to the queue to run again from the start (requeue) or end there (cancel).
// Nodes: a job that fits under one leaf switch goes under the fullest leaf that holds it (best fit), a
// larger one takes the leaves with the most free nodes first; within a leaf, lowest-numbered nodes first.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "configs/enum_names.h"
#include "sim-core/simulator.h"
#include "workloads/scheduling/batch_job.h"
#include "workloads/scheduling/queue_setup.h"

namespace hpcsim {

enum class QueuePolicy { fcfs, easy, conservative, priority };
inline constexpr EnumNames<QueuePolicy, 4> kQueuePolicyNames{{{{QueuePolicy::fcfs, "fcfs"},
                                                               {QueuePolicy::easy, "easy"},
                                                               {QueuePolicy::conservative, "conservative"},
                                                               {QueuePolicy::priority, "priority"}}}};

// A run of a job cut short by preemption.
struct PreemptedRun {
  double start_s = 0, end_s = 0;
  std::vector<int> node_ids;
};

struct QueueRun {
  ScheduledJob scheduled;     // its last run (a cancelled job: the run preemption ended)
  std::vector<int> node_ids;  // the nodes it ran on
  // The first reservation the job got (EASY: as the blocked head; conservative: at its first pass); unset
  // when it started without one. A job never starts after it while jobs end by their estimates.
  std::optional<double> reservation_s;
  std::vector<PreemptedRun> requeued_runs;  // earlier runs stopped by preemption (requeue mode)
  bool cancelled = false;                   // stopped by preemption for good (cancel mode)
};

// A job's run time on the nodes it got (a training job's prediction on its placement).
using RunTimeHook = std::function<double(const BatchJob& job, const std::vector<int>& node_ids)>;

// The queue on a simulator another driver owns (a campaign submits trials as earlier ones end).
class BatchScheduler {
 public:
  // std::invalid_argument for a setup without nodes or with partitions outside the nodes or overlapping.
  BatchScheduler(Simulator& sim, QueueSetup setup, QueuePolicy policy, RunTimeHook run_time = {});
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // Queues the job now (its submit_s becomes the simulator's time); returns its handle (0, 1, ... in
  // submit order). std::invalid_argument for a job its partition cannot ever run (too many nodes, a
  // limit above the partition's, unknown table indices); check() says why without throwing.
  std::size_t submit(BatchJob job);
  // Schedules the submit at job.submit_s (at or after now).
  void submit_at(BatchJob job);
  // Empty when the job can run in its partition, else the reason it cannot.
  std::string check(const BatchJob& job) const;
  // Called as each job ends, after its nodes are free and before the instant's pass.
  void on_end(std::function<void(std::size_t handle, const QueueRun&)> callback);

  const QueueRun& run(std::size_t handle) const;
  std::size_t submitted() const;
  // Every submitted job in submit order (handle order); call after the simulator has run.
  std::vector<QueueRun> take_runs();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Every job scheduled, in the order given. `jobs` must be in queue order (submit time, then id), each one
// the setup can run (std::invalid_argument otherwise).
// `ended` is called as each job ends, with the jobs ended so far and the jobs given (a progress line: a trace
// of millions of jobs on an overloaded machine runs for minutes).
std::vector<QueueRun> simulate_batch_queue(const std::vector<BatchJob>& jobs, const QueueSetup& setup,
                                           QueuePolicy policy, RunTimeHook run_time = {},
                                           const std::function<void(std::size_t ended, std::size_t jobs)>& ended = {});
// One partition of `nodes` nodes under one switch; one account of equal shares per account index used.
std::vector<QueueRun> simulate_batch_queue(const std::vector<BatchJob>& jobs, int nodes, QueuePolicy policy);

}  // namespace hpcsim

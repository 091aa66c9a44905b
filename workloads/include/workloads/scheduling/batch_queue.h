#pragma once
// A batch queue on a cluster of identical nodes, simulated on the event engine: jobs arrive at their
// submit times, wait in queue order (submit time, then id) and run on whole nodes.
//
// At each instant every job end and every submit at that time is applied first, then one scheduling pass
// runs. A pass starts queue heads while they fit; FCFS stops there. EASY then gives the blocked head a
// reservation at the shadow time (the earliest estimated end, start + estimate, of running jobs at which the
// free nodes plus those released by every running job ending by then cover the head; the spare is that sum
// minus the head's need) and scans the rest of the queue once, in order, starting each job that fits the
// free nodes and either ends by its estimate no later than the shadow time or needs no more than the spare
// (which it then uses up). A job ends at start + run time, or is killed at start + estimate when it would
// run longer. Conservative backfilling gives every waiting job, in queue order, a reservation at the
// earliest time its nodes stay free for its whole estimate, given the running jobs' estimated ends and the
// reservations before it, and starts the jobs whose reservation is now; the reservations are rebuilt at every
// pass, so a job ending early only moves them earlier. Nodes are taken lowest-numbered first.
#include <optional>
#include <string_view>
#include <vector>

#include "configs/enum_names.h"
#include "workloads/scheduling/batch_job.h"

namespace hpcsim {

enum class QueuePolicy { fcfs, easy, conservative, priority };
inline constexpr EnumNames<QueuePolicy, 4> kQueuePolicyNames{{{{QueuePolicy::fcfs, "fcfs"},
                                                               {QueuePolicy::easy, "easy"},
                                                               {QueuePolicy::conservative, "conservative"},
                                                               {QueuePolicy::priority, "priority"}}}};

struct QueueRun {
  ScheduledJob scheduled;
  std::vector<int> node_ids;  // the nodes it ran on
  // The first reservation the job got (EASY: as the blocked head; conservative: at its first pass); unset
  // when it started without one. A job never starts after it while jobs end by their estimates.
  std::optional<double> reservation_s;
};

// Every job scheduled, in queue order. `jobs` must be in queue order, each needing 1..nodes nodes
// (std::invalid_argument otherwise). The priority policy is not built yet:
// std::invalid_argument saying so.
std::vector<QueueRun> simulate_batch_queue(const std::vector<BatchJob>& jobs, int nodes, QueuePolicy policy);

}  // namespace hpcsim

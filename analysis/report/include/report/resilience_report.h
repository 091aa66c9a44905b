#pragma once
// The metrics a `resilience:` section adds to a training run's report (resilience.*): the failure model's
// job-level MTTI, the checkpoint's write and restore, Young's and Daly's intervals beside the one used, the
// Monte Carlo's time to train (mean, standard error, p5/p50/p95), ETTR, interruptions by cause and the time
// lost to checkpoints, recomputation, detection, restarts, spare waits and restores (means per replica; counts
// per replica in "1/run", not rounded).
#include <vector>

#include "store/metric.h"
#include "workloads/resilience/long_run.h"
#include "workloads/resilience/resilience_config.h"

namespace hpcsim {

std::vector<Metric> resilience_metrics(const ResilienceConfig& config, const LongRunSummary& summary, double work_s);

}  // namespace hpcsim

#pragma once
// The metric list of a training step (a `kind: training` scenario), as `hpcsim run` prints and stores it.
#include <optional>
#include <vector>

#include "store/metric.h"
#include "report/step_time_interval.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

// Units: "s", "1/s", "TFLOP/s", "ratio", "bytes", "bool" (1 or 0), "count". With an interval, the band
// the true step time is expected in (step_time_interval_s) and the throughput band it implies
// (throughput.samples_per_s_interval), each as two metrics "name[0]" and "name[1]" (a JSON array).
std::vector<Metric> training_step_metrics(const TrainingStepResult& result, double sim_wall_s,
                                 const std::optional<PredictionInterval>& interval = std::nullopt);

}  // namespace hpcsim

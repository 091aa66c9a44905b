#pragma once
// `hpcsim run --scale` as results: per GPU count the step, throughput, speed-up and scaling efficiency,
// rendered as a table, JSON or CSV. The runs themselves are driver/scaling.h and driver/scaling_study.h.
#include <optional>
#include <string>
#include <vector>

#include "report/step_time_interval.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

struct ScalingPoint {
  int gpus = 0, nodes = 0;
  TrainingStepResult result;
  std::optional<PredictionInterval> interval;  // the band of the true step time (prediction_interval.h)
};

struct ScalingRow {
  int gpus = 0, nodes = 0;
  double step_time_s = 0, samples_per_s = 0;
  std::optional<double> tokens_per_s;
  std::optional<PredictionInterval> interval;
  double speedup = 1;     // samples_per_s over the first point's
  double efficiency = 1;  // speedup / (gpus / first point's gpus)
};

std::vector<ScalingRow> scaling_rows(const std::vector<ScalingPoint>& points);
std::string scaling_to_table(const std::string& scenario, const std::vector<ScalingRow>& rows);
std::string scaling_to_json(const std::vector<ScalingRow>& rows);  // an array of objects, one per row
std::string scaling_to_csv(const std::vector<ScalingRow>& rows);

}  // namespace hpcsim

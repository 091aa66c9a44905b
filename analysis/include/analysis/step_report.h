#pragma once
// The outputs of `hpcsim run`: one list of metrics (dotted names are the fixed JSON keys, e.g.
// "throughput.samples_per_s"), rendered as JSON, a readable table or CSV, and stored as is.
#include <optional>
#include <string>
#include <vector>

#include "analysis/prediction_interval.h"
#include "analysis/results_store.h"
#include "workloads/training/step_result.h"

namespace hpcsim {

// Units: "s", "1/s", "TFLOP/s", "ratio", "bytes", "bool" (1 or 0), "count". With an interval, the band
// the true step time is expected in (step_time_interval_s) and the throughput band it implies
// (throughput.samples_per_s_interval), each as two metrics "name[0]" and "name[1]" (a JSON array).
std::vector<Metric> step_metrics(const StepResult& result, double sim_wall_s,
                                 const std::optional<PredictionInterval>& interval = std::nullopt);

// Nested JSON: dotted names become objects, adjacent "name[i]" metrics an array; "bool" metrics become true/false, "count" integers,
// an empty value null. `scenario` is added as the first key.
std::string metrics_to_json(const std::string& scenario, const std::vector<Metric>& metrics);
std::string metrics_to_table(const std::string& scenario, const std::vector<Metric>& metrics);
std::string metrics_to_csv(const std::vector<Metric>& metrics);

}  // namespace hpcsim

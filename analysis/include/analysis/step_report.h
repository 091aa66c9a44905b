#pragma once
// The outputs of `hpcsim run`: one list of metrics (dotted names are the fixed JSON keys, e.g.
// "throughput.samples_per_s"), rendered as JSON, a readable table or CSV, and stored as is.
#include <string>
#include <vector>

#include "analysis/results_store.h"
#include "workloads/training/step_result.h"

namespace hpcsim {

// Units: "s", "1/s", "TFLOP/s", "ratio", "bytes", "bool" (1 or 0), "count".
std::vector<Metric> step_metrics(const StepResult& result, double sim_wall_s);

// Nested JSON: dotted names become objects; "bool" metrics become true/false, "count" integers,
// an empty value null. `scenario` is added as the first key.
std::string metrics_to_json(const std::string& scenario, const std::vector<Metric>& metrics);
std::string metrics_to_table(const std::string& scenario, const std::vector<Metric>& metrics);
std::string metrics_to_csv(const std::vector<Metric>& metrics);

}  // namespace hpcsim

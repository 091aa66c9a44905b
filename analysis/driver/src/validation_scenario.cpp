// A validation scenario: a training step simulated exactly as `hpcsim run` does, then read in the metric
// its measurement was published in.
#include <cmath>
#include <stdexcept>
#include <string>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "driver/prediction_interval.h"
#include "validation_cases.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim::validation_detail {

namespace {

// The prediction in the measured metric. Model FLOPs count backward as twice forward; "hardware" FLOPs,
// as Megatron papers count them, add the forwards recomputed under activation checkpointing.
double predicted_value(const TrainingScenario& s, const TrainingStepReport& report, const ConfigNode& metric_node) {
  const TrainingStepResult& r = report.result;
  const std::string metric = metric_node.as_string();
  if (metric == "samples_per_s") return r.samples_per_s;
  if (metric == "tokens_per_s") {
    if (!r.tokens_per_s) throw ConfigError(metric_node.loc(), "tokens_per_s needs a model with a token input; " +
                                                                  s.workload.model + " has none");
    return *r.tokens_per_s;
  }
  if (metric == "tflops_per_gpu") return r.tflops_per_gpu;
  if (metric == "hardware_tflops_per_gpu") return report.hardware_flops / r.step_time_s / 1e12;
  if (metric == "step_time_s") return static_cast<double>(s.global_batch()) / r.samples_per_s;
  if (metric == "s_per_kimg") return 1000.0 / r.samples_per_s;
  throw ConfigError(metric_node.loc(), "unexpected metric " + metric);  // the scenario schema admits no other
}

}  // namespace

ValidationRow scenario_case(const std::filesystem::path& file, const SpecCatalog& catalog) {
  const ConfigNode root = load_config(file, {});
  const TrainingScenario s = parse_training_scenario(root, catalog, file.stem().string());
  const ConfigNode& measured = validation_detail::case_measurement(root, file, s.name, s.measured.has_value());

  const TrainingStepReport report = simulate_scenario(s);
  ValidationRow row;
  row.id = s.name;
  row.kind = "scenario";
  row.metric = s.measured->metric;
  row.unit = s.measured->unit;
  row.measured = s.measured->value;
  row.predicted = predicted_value(s, report, measured.at("metric"));
  row.trust = s.measured->trust;
  row.source = s.measured->source;
  row.category = s.measured->category;
  row.family = s.measured->family;
  row.interval_class = prediction_class(s);
  row.file = file.filename().string();
  if (!std::isfinite(row.predicted) || row.predicted <= 0) {
    throw std::runtime_error(file.string() + ": the simulation predicted " + std::to_string(row.predicted) + " " +
                             row.metric);
  }
  return row;
}

}  // namespace hpcsim::validation_detail

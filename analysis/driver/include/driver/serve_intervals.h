#pragma once
// Prediction intervals for serve predictions: training's machinery (prediction_interval.h: a 90 % band for a new row
// from the validation rows' ratios of predicted to true, by class) applied to the serving validation rows.
// A serve prediction's class is "serve/<category>": cpu-infer (a CPU replica), gpu-infer (GPU replicas) or
// llm-serve (an LLM endpoint), latencies and rates together; a class falls back to every serving row
// ("serve/*", then "*": the same rows). An entry needs IntervalTable's rows and source families, as
// training's classes do.
// The table is configs/serving-intervals.yaml, derived by `hpcsim validate --serve-intervals`; a test holds
// the shipped table to that derivation. No parameter is fitted on serving rows (the calibrated ones are
// fitted on training rows alone), so a serving row's family-out prediction is its in-sample one.
#include <filesystem>
#include <string>
#include <vector>

#include "driver/prediction_interval.h"
#include "report/validation_report.h"
#include "store/metric.h"
#include "workloads/serving/serve_scenario.h"

namespace hpcsim {

inline constexpr const char* kServeIntervalFile = "serving-intervals.yaml";

// cpu-infer, gpu-infer or llm-serve: the validation category a serve scenario's predictions belong to.
std::string serve_category(const ServeScenario& scenario);
// "serve/<category>": the interval class of every metric the scenario predicts.
std::string serve_interval_class(const ServeScenario& scenario);

// The table from the rows' interval classes (IntervalTable::derive).
IntervalTable derive_serve_intervals(const ValidationReport& serve);
// <config_root>/serving-intervals.yaml; an empty table when the file is absent.
IntervalTable load_serve_intervals(const std::filesystem::path& config_root);
// The YAML text of serving-intervals.yaml.
std::string serve_intervals_yaml(const IntervalTable& table);

// How often a measured value lies inside its row's interval, per category and over all rows ("*").
using ServeIntervalCoverage = CategoryIntervalCoverage;
std::vector<ServeIntervalCoverage> serve_interval_coverage(const ValidationReport& serve, const IntervalTable& table);

// The band each headline metric of a serve report is expected in, as "<metric>_interval[0]" and "[1]" after
// the metric: latency_s.p99, latency_s.mean, ttft_s.p99, tpot_s.mean (times: [v / high_ratio, v / low_ratio])
// and, where the run predicts a rate rather than reading back the offered one (offline, a closed loop, a rate
// search), throughput_rps, output_tokens_per_s and max_rate.rate_rps (rates: [v x low_ratio, v x high_ratio]).
// Nothing is added for metrics without a value or when the table has no entry for the class.
void add_serve_intervals(Report& report, const ServeScenario& scenario, const IntervalTable& table);

}  // namespace hpcsim

// Prediction intervals for serve predictions, from the serving validation rows' errors by class.
#include "driver/serve_intervals.h"

#include <algorithm>

namespace hpcsim {

namespace {

// Metrics whose value the run predicts as a time (any run) or as a rate (only where the run does not read
// back the offered rate).
constexpr const char* kTimeHeadlines[] = {"latency_s.p99", "latency_s.mean", "ttft_s.p99", "tpot_s.mean"};
constexpr const char* kRateHeadlines[] = {"throughput_rps", "output_tokens_per_s"};

}  // namespace

std::string serve_category(const ServeScenario& s) {
  if (s.llm) return "llm-serve";
  return s.setup.on_gpu() ? "gpu-infer" : "cpu-infer";
}

std::string serve_interval_class(const ServeScenario& s) { return "serve/" + serve_category(s); }

IntervalTable derive_serve_intervals(const ValidationReport& serve) {
  return IntervalTable::derive(unfitted_cross_validation(serve));
}

IntervalTable load_serve_intervals(const std::filesystem::path& config_root) {
  return IntervalTable::load(config_root, kServeIntervalFile);
}

std::string serve_intervals_yaml(const IntervalTable& table) {
  return "# Serve prediction intervals: for each serving class (serve/<category>: cpu-infer, gpu-infer, llm-serve)\n"
         "# and all serving rows (\"serve/*\", and \"*\" the same rows), a 90 % band for a new row (split conformal) of\n"
         "# the serving validation rows' ratios of predicted to measured time (a rate's ratio turned over); hpcsim serve reports a\n"
         "# time in [predicted / high_ratio, predicted / low_ratio] and a rate in [predicted x low_ratio, predicted x\n"
         "# high_ratio] (<metric>_interval). An entry needs 5 rows from 2 source families or more; a class without one\n"
         "# falls back to \"serve/*\"; one of 5 to 18 rows (too few for a 90 % band of its own) spans its extreme\n"
         "# ratios and serve/*'s band. Nothing is fitted on serving rows: these ratios are the family-out ones too.\n"
         "# Derived, not edited: `hpcsim validate --serve-intervals > configs/serving-intervals.yaml` (a test checks it).\n" +
         table.entries_yaml();
}

std::vector<ServeIntervalCoverage> serve_interval_coverage(const ValidationReport& serve, const IntervalTable& table) {
  return unfitted_interval_coverage(serve, table, {"cpu-infer", "gpu-infer", "llm-serve"});
}

void add_serve_intervals(Report& report, const ServeScenario& s, const IntervalTable& table) {
  const bool predicts_rate = s.serving.offline() || s.serving.closed_loop();
  std::vector<std::string> names(std::begin(kTimeHeadlines), std::end(kTimeHeadlines));
  if (predicts_rate) names.insert(names.end(), std::begin(kRateHeadlines), std::end(kRateHeadlines));
  names.push_back("max_rate.rate_rps");  // a searched rate: the model's prediction (no value when not met)
  const std::optional<IntervalEntry> e = table.lookup(serve_interval_class(s));
  if (!e) return;
  for (const std::string& name : names) add_metric_interval(report, name, *e);
}

}  // namespace hpcsim

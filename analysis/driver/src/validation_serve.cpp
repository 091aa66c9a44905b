// Serve validation cases (configs/validation/inference/): published CPU, GPU and LLM serving measurements
// as kind: serve scenarios, predicted as `hpcsim serve` runs them and read in the metric they measured.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "driver/serve_intervals.h"
#include "driver/serve_run.h"
#include "driver/validation.h"
#include "validation_cases.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/inference/offline_prediction.h"
#include "workloads/serving/serve_scenario.h"

namespace hpcsim {

namespace {

// What a serve case measures when no queue is involved, from the batch cost alone: single-stream latency
// (no rate, no concurrency, no rate search; latency_s.mean) is one full batch's latency, and offline
// throughput (throughput_rps) every worker running full batches; the batch is ServingConfig::full_batch(),
// the one the serve engine's offline run takes. Rows that depend on a queue are the serving engine's.
std::optional<double> predict_without_queue(const ServeScenario& s) {
  const ServingConfig& c = s.serving;
  if (s.llm || !c.offline() || c.max_rate_p99_s) return std::nullopt;
  const OfflineResult offline = offline_throughput(s.setup, c.full_batch(), c.requests_per_batch(), c.replicas);
  if (s.measured->metric == "latency_s.mean") {
    return offline.batch_latency_s + (c.front_end.threads > 0 ? c.front_end.per_request_s : 0);
  }
  if (s.measured->metric == "throughput_rps") return offline.throughput_rps;
  return std::nullopt;
}

ValidationRow serve_case(const std::filesystem::path& file, const SpecCatalog& catalog, std::string& not_scored) {
  const ConfigNode root = load_config(file, {});
  const ServeScenario s = parse_serve_scenario(root, catalog, file.stem().string());
  const ConfigNode& measured = validation_detail::case_measurement(root, file, s.name, s.measured.has_value());
  not_scored = s.measured->not_scored;
  ValidationRow row;
  row.id = s.name;
  row.kind = "serve";
  row.metric = s.measured->metric;
  row.unit = s.measured->unit;
  row.measured = s.measured->value;
  row.trust = s.measured->trust;
  row.source = s.measured->source;
  row.category = s.measured->category;
  row.family = s.measured->family;
  row.file = file.filename().string();
  row.interval_class = serve_interval_class(s);
  // Rows that need no queue (a single stream's batch latency, offline throughput at the best batch) read
  // the cost model directly; the others run the endpoint.
  const std::optional<double> direct = predict_without_queue(s);
  if (direct) {
    row.predicted = *direct;
  } else {
    const Report report = serve_once(s).report;
    const auto it = std::find_if(report.metrics.begin(), report.metrics.end(),
                                 [&](const Metric& m) { return m.name == row.metric; });
    if (it == report.metrics.end() || !it->value) {
      throw ConfigError(measured.at("metric").loc(), "the serve report has no value for " + row.metric);
    }
    row.predicted = *it->value;
  }
  if (!std::isfinite(row.predicted) || row.predicted <= 0) {
    throw std::runtime_error(file.string() + ": the simulation predicted " + std::to_string(row.predicted) + " " + row.metric);
  }
  return row;
}

}  // namespace

ValidationReport run_serve_validation(const std::filesystem::path& validation_dir, const SpecCatalog& catalog,
                                      const CaseFilter& include) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(validation_dir)) throw std::runtime_error("validation folder not found: " + validation_dir.string());
  std::vector<fs::path> files;
  for (const char* folder : kServeCaseFolders) {
    if (!fs::is_directory(validation_dir / folder)) continue;
    for (const fs::directory_entry& e : fs::directory_iterator(validation_dir / folder)) {
      if (e.is_regular_file() && e.path().extension() == ".yaml" && (!include || include(e.path().stem().string()))) {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  ValidationReport report;
  for (const fs::path& f : files) {
    std::string not_scored;
    ValidationRow row = serve_case(f, catalog, not_scored);
    if (not_scored.empty()) {
      report.rows.push_back(std::move(row));
    } else {
      report.unscored.emplace_back(row.id, not_scored);
    }
  }
  summarize_validation(report);
  return report;
}

}  // namespace hpcsim

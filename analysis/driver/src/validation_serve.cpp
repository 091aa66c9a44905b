// Serve validation cases (configs/validation/inference/): published CPU, GPU and LLM serving measurements
// as kind: serve scenarios, predicted as `hpcsim serve` runs them and read in the metric they measured.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "driver/serve_run.h"
#include "driver/validation.h"
#include "validation_cases.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/inference/offline_prediction.h"
#include "workloads/serving/serve_scenario.h"

namespace hpcsim {

namespace {

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
  // Rows that need no queue (a single stream's batch latency, offline throughput at the best batch) read
  // the cost model directly; the others run the endpoint.
  const std::optional<double> direct = s.llm ? std::nullopt : predict_without_queue(root, catalog);
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

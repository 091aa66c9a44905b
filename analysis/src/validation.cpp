#include "analysis/validation.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <thread>

#include "configs/config_error.h"
#include "validation_cases.h"

namespace hpcsim {

bool ValidationRow::within_band() const { return std::abs(error) <= band; }

double validation_error_band(std::string_view trust) { return trust == "high" ? 0.25 : 0.35; }

namespace {

// Cases are independent simulations: run them on every core, each result in its case's place (the
// report does not depend on the thread count). The first error, in case order, is rethrown.
template <typename Case, typename Run>
std::vector<ValidationRow> run_in_parallel(const std::vector<Case>& cases, const Run& run) {
  std::vector<ValidationRow> rows(cases.size());
  std::vector<std::exception_ptr> errors(cases.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < cases.size(); i = next++) {
      try {
        rows[i] = run(cases[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < cases.size(); ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return rows;
}

}  // namespace

namespace validation_detail {

const ConfigNode& case_measurement(const ConfigNode& root, const std::filesystem::path& file, const std::string& name,
                                   bool has_measured) {
  if (!has_measured) throw ConfigError(root.loc(), "a validation case needs a measured: section");
  if (name != file.stem().string()) {
    throw ConfigError(root.has("name") ? root.at("name").loc() : root.loc(),
                      "a validation case is named after its file: " + file.stem().string());
  }
  const ConfigNode& measured = root.at("measured");
  for (const char* key : {"category", "family"}) {
    if (!measured.has(key)) throw ConfigError(measured.loc(), std::string("a validation case needs measured.") + key);
  }
  return measured;
}

}  // namespace validation_detail

bool is_time_metric(const std::string& metric) {
  return metric == "time_ms" || metric == "step_time_s" || metric == "s_per_kimg";
}

double ValidationRow::time_ratio() const {
  return is_time_metric(metric) ? predicted / measured : measured / predicted;
}

void summarize_validation(ValidationReport& report) {
  double sum = 0;
  report.worst = -1;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    ValidationRow& row = report.rows[i];
    row.error = (row.predicted - row.measured) / row.measured;  // the schemas require measured > 0
    row.band = validation_error_band(row.trust);
    sum += std::abs(row.error);
    if (report.worst < 0 || std::abs(row.error) > std::abs(report.rows[report.worst].error)) {
      report.worst = static_cast<int>(i);
    }
  }
  report.mape = report.rows.empty() ? 0 : sum / static_cast<double>(report.rows.size());
}

ValidationReport run_validation(const std::filesystem::path& dir, const SpecCatalog& catalog, const CaseFilter& include) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw std::runtime_error("validation folder not found: " + dir.string());
  std::vector<fs::path> scenarios;
  fs::path micro;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    if (e.path().filename() == validation_detail::kMicrobenchmarksFile) {
      micro = e.path();
    } else if (!include || include(e.path().stem().string())) {
      scenarios.push_back(e.path());
    }
  }
  std::sort(scenarios.begin(), scenarios.end());  // directory order is not deterministic

  ValidationReport report;
  report.rows = run_in_parallel(scenarios, [&catalog](const fs::path& file) { return validation_detail::scenario_case(file, catalog); });
  if (!micro.empty()) {
    for (ValidationRow& row : validation_detail::microbenchmark_cases(micro, catalog, include)) {
      report.rows.push_back(std::move(row));
    }
  }
  summarize_validation(report);
  return report;
}

std::vector<CategoryScore> score_by_category(const std::vector<ValidationRow>& rows, const std::vector<double>& errors) {
  std::vector<CategoryScore> out;
  for (const char* category : {"cnn", "rnn", "gan", "transformer", "scaling", "micro", "cpu-infer", "gpu-infer", "llm-serve"}) {
    CategoryScore score{category};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].category != category) continue;
      ++score.rows;
      score.mape += std::abs(errors[i]);
      if (std::abs(errors[i]) > std::abs(score.worst)) score.worst = errors[i];
    }
    if (score.rows == 0) continue;
    score.mape /= score.rows;
    out.push_back(score);
  }
  return out;
}

}  // namespace hpcsim

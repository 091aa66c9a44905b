#include "analysis/validation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "validation_cases.h"

namespace hpcsim {

bool ValidationRow::within_band() const { return std::abs(error) <= band; }

double validation_error_band(std::string_view trust) { return trust == "high" ? 0.25 : 0.35; }

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
  for (const fs::path& file : scenarios) report.rows.push_back(validation_detail::scenario_case(file, catalog));
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
  for (const char* category : {"cnn", "rnn", "gan", "transformer", "scaling", "micro"}) {
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

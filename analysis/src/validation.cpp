#include "analysis/validation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "validation_cases.h"

namespace hpcsim {

bool ValidationRow::within_band() const { return std::abs(error) <= band; }

double validation_error_band(std::string_view trust) { return trust == "high" ? 0.25 : 0.35; }

ValidationReport run_validation(const std::filesystem::path& dir, const SpecCatalog& catalog) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw std::runtime_error("validation folder not found: " + dir.string());
  std::vector<fs::path> scenarios;
  fs::path micro;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    if (e.path().filename() == validation_detail::kMicrobenchmarksFile) {
      micro = e.path();
    } else {
      scenarios.push_back(e.path());
    }
  }
  std::sort(scenarios.begin(), scenarios.end());  // directory order is not deterministic

  ValidationReport report;
  for (const fs::path& file : scenarios) report.rows.push_back(validation_detail::scenario_case(file, catalog));
  if (!micro.empty()) {
    for (ValidationRow& row : validation_detail::microbenchmark_cases(micro, catalog)) {
      report.rows.push_back(std::move(row));
    }
  }

  double sum = 0, prediction_sum = 0;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    ValidationRow& row = report.rows[i];
    row.error = (row.predicted - row.measured) / row.measured;  // the schemas require measured > 0
    row.band = validation_error_band(row.trust);
    sum += std::abs(row.error);
    if (row.calibrates.empty()) {
      prediction_sum += std::abs(row.error);
    } else {
      ++report.calibration_rows;
    }
    if (report.worst < 0 || std::abs(row.error) > std::abs(report.rows[report.worst].error)) {
      report.worst = static_cast<int>(i);
    }
  }
  if (!report.rows.empty()) report.mape = sum / static_cast<double>(report.rows.size());
  const auto predictions = static_cast<double>(report.rows.size()) - report.calibration_rows;
  if (predictions > 0) report.prediction_mape = prediction_sum / predictions;
  return report;
}

}  // namespace hpcsim

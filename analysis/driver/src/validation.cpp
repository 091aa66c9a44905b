#include "driver/validation.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <thread>

#include "configs/config_error.h"
#include "validation_cases.h"

namespace hpcsim {

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

}  // namespace hpcsim

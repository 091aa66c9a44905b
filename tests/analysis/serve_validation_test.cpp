// The serving validation cases (configs/validation/inference/): every published CPU, GPU and LLM serving
// measurement that can be expressed as a serve scenario runs as `hpcsim serve` runs it; MAPE per category.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "analysis/validation.h"
#include "configs/catalog.h"

using namespace hpcsim;

namespace {

const std::filesystem::path kServeCases = std::filesystem::path(HPCSIM_SOURCE_CONFIG_DIR) / "validation" / "inference";

const ValidationReport& serve_report() {
  static const ValidationReport report = run_serve_validation(kServeCases, SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
  return report;
}

std::vector<CategoryScore> scores() {
  std::vector<double> errors;
  for (const ValidationRow& row : serve_report().rows) errors.push_back(row.error);
  return score_by_category(serve_report().rows, errors);
}

}  // namespace

TEST_CASE("serve validation: every case runs and is printed with its category's MAPE", "[serve][validation]") {
  const ValidationReport& report = serve_report();
  for (const ValidationRow& r : report.rows) {
    std::printf("%-54s %-9s %-16s measured %11.5g predicted %11.5g error %+6.1f%%\n", r.id.c_str(), r.category.c_str(),
                r.metric.c_str(), r.measured, r.predicted, 100 * r.error);
  }
  for (const CategoryScore& c : scores()) {
    std::printf("%-9s %2d cases MAPE %.1f%% worst %+.1f%%\n", c.category.c_str(), c.rows, 100 * c.mape, 100 * c.worst);
  }
  REQUIRE(report.rows.size() >= 29);
  // A lost factor (threads, replicas, a unit) lands outside a factor of 3 either way.
  for (const ValidationRow& r : report.rows) {
    INFO(r.id);
    CHECK(r.predicted > r.measured / 3);
    CHECK(r.predicted < r.measured * 3);
  }
}

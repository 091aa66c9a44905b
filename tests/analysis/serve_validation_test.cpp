// The serving validation cases (configs/validation/inference/): every published CPU, GPU and LLM serving
// measurement that can be expressed as a serve scenario runs as `hpcsim serve` runs it; MAPE per category.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "driver/validation.h"
#include "configs/catalog.h"

using namespace hpcsim;

namespace {

const std::filesystem::path kValidationDir = std::filesystem::path(HPCSIM_SOURCE_CONFIG_DIR) / "validation";

const ValidationReport& serve_report() {
  static const ValidationReport report = run_serve_validation(kValidationDir, SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
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
  for (const auto& [id, why] : report.unscored) std::printf("not scored: %s (%s)\n", id.c_str(), why.c_str());
  // Every row of the reference list is here: 28 CPU and GPU cases, 12 LLM cases (3 run but not scored).
  CHECK(report.rows.size() + report.unscored.size() == 40);
  for (const ValidationRow& r : report.rows) {
    INFO(r.id);
    CHECK(std::isfinite(r.predicted));
    CHECK(r.predicted > 0);
  }
}

// The bound, per category (met by all three from pass 10, 2026-12-04: cpu-infer 19.8 %, gpu-infer
// 19.0 %, llm-serve 11.9 %; docs/validation.md, "Serving"). Since issue 37 the three MLPerf server throughput
// rows are scored by the highest rate the simulation keeps within the p99 bound instead of the published rate
// fed in and read back (a metric that could not miss): they read +28 % to +89 % and cpu-infer 26.4 %, above
// the 20 % target, which this test no longer claims for it. Issue 37's first host-side CPU mechanisms (GEMMs
// and convolutions at the spec's licence clock, autograd recording without torch.no_grad: docs/inference.md
// pass 11) bring it to 20.2 %; its bound here is 21 %, a regression gate just above that figure (was 27 %);
// gpu-infer (17.9 %) and llm-serve (11.9 %) keep the target.
TEST_CASE("serve validation: every category's MAPE at most 20 % (issue 16 target), cpu-infer at most 21 %",
          "[target][serve][validation]") {
  int categories = 0;
  for (const CategoryScore& c : scores()) {
    INFO(c.category);
    CHECK(c.rows >= (c.category == "llm-serve" ? 9 : c.category == "gpu-infer" ? 12 : 16));
    CHECK(c.mape <= (c.category == "cpu-infer" ? 0.21 : 0.20));
    ++categories;
  }
  CHECK(categories == 3);
}

// MLPerf server rows are scored by the rate search: a prediction that depends on the model, not the
// measured value fed back (issue 37).
TEST_CASE("serve validation: MLPerf server throughput rows read the highest rate within their p99 bound",
          "[serve][validation]") {
  int searched = 0;
  for (const ValidationRow& r : serve_report().rows) {
    if (r.id.find("-server") == std::string::npos || r.metric.rfind("latency_s.", 0) == 0) continue;
    INFO(r.id);
    CHECK(r.metric == "max_rate.rate_rps");
    ++searched;
  }
  CHECK(searched == 3);
}

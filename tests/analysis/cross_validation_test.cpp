// Generalization: the cross-validated error of the public validation set (each source family predicted
// with the calibrated parameters refitted without it) and the prediction intervals drawn from it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "analysis/calibration.h"
#include "analysis/prediction_interval.h"
#include "configs/catalog.h"

using namespace hpcsim;

namespace {

const std::filesystem::path kConfigDir = HPCSIM_SOURCE_CONFIG_DIR;

const CrossValidation& public_cv() {
  static const CrossValidation cv = [] {
    CrossValidation r = cross_validate(kConfigDir / "validation", SpecCatalog(kConfigDir));
    std::cout << "\nCross-validation (hpcsim validate --cv):\n"
              << render_cross_validation(r, CrossValidationFormat::table) << std::flush;
    return r;
  }();
  return cv;
}

bool covers(const IntervalTable& table, const ValidationRow& row) {
  const std::optional<IntervalEntry> e = table.lookup(row.interval_class);
  REQUIRE(e);
  const double ratio = row.time_ratio();  // predicted over measured step time, in-sample prediction
  return ratio >= e->low_ratio && ratio <= e->high_ratio;
}

}  // namespace

TEST_CASE("cross-validation: every row is predicted with its own family left out", "[validation][cv]") {
  const CrossValidation& cv = public_cv();
  const auto& rows = cv.in_sample.rows;
  REQUIRE(cv.predicted.size() == rows.size());
  std::map<std::string, int> families;
  for (const ValidationRow& row : rows) ++families[row.family];
  CHECK(cv.folds.size() == families.size());
  CHECK(families.size() >= 8);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO(rows[i].id);
    CHECK(std::isfinite(cv.predicted[i]));
    CHECK(cv.error[i] == Approx((cv.predicted[i] - rows[i].measured) / rows[i].measured));
  }
}

TEST_CASE("cross-validation: MAPE at most 18 %", "[validation][cv]") {
  const CrossValidation& cv = public_cv();
  std::printf("cross-validated MAPE %.1f %% (in-sample %.1f %%) over %zu rows\n", cv.mape * 100,
              cv.in_sample.mape * 100, cv.in_sample.rows.size());
  std::fflush(stdout);
  CHECK(cv.mape <= 0.18);
}

TEST_CASE("prediction intervals: the shipped table is the one the cross-validation gives", "[validation][cv]") {
  const IntervalTable shipped = IntervalTable::load(kConfigDir);
  const IntervalTable derived = IntervalTable::derive(public_cv());
  INFO("regenerate with: hpcsim validate --intervals > configs/prediction-intervals.yaml");
  REQUIRE(shipped.entries().size() == derived.entries().size());
  for (std::size_t i = 0; i < derived.entries().size(); ++i) {
    const IntervalEntry& a = shipped.entries()[i];
    const IntervalEntry& b = derived.entries()[i];
    INFO(b.cls);
    CHECK(a.cls == b.cls);
    CHECK(a.rows == b.rows);
    CHECK(a.low_ratio == Approx(b.low_ratio).margin(1e-3));
    CHECK(a.high_ratio == Approx(b.high_ratio).margin(1e-3));
  }
}

TEST_CASE("prediction intervals: the measured value falls inside for at least 80 % of the public rows",
          "[validation][cv]") {
  const CrossValidation& cv = public_cv();
  const IntervalTable table = IntervalTable::load(kConfigDir);
  int rows = 0, inside = 0, inside_left_out = 0;
  for (std::size_t i = 0; i < cv.in_sample.rows.size(); ++i) {
    const ValidationRow& row = cv.in_sample.rows[i];
    if (row.interval_class.empty()) continue;  // microbenchmarks carry no step-time interval
    ++rows;
    inside += covers(table, row) ? 1 : 0;
    // The stricter figure: the interval drawn without the row's own source family.
    CrossValidation others = cv;
    others.in_sample.rows.clear();
    others.predicted.clear();
    for (std::size_t j = 0; j < cv.in_sample.rows.size(); ++j) {
      if (cv.in_sample.rows[j].family == row.family) continue;
      others.in_sample.rows.push_back(cv.in_sample.rows[j]);
      others.predicted.push_back(cv.predicted[j]);
    }
    ValidationRow left_out = row;
    left_out.predicted = cv.predicted[i];
    inside_left_out += covers(IntervalTable::derive(others), left_out) ? 1 : 0;
  }
  REQUIRE(rows > 0);
  std::printf("interval coverage: %d of %d public rows (%.0f %%); with each row's family left out of its interval: "
              "%d (%.0f %%)\n", inside, rows, 100.0 * inside / rows, inside_left_out, 100.0 * inside_left_out / rows);
  std::fflush(stdout);
  CHECK(inside >= 0.8 * rows);
}

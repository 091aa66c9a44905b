// The public validation sets (configs/validation): every case runs; the calibrated parameters are their
// fit over every row, none a per-case constant; the cross-validated error (each source family predicted
// with the parameters refitted without it) and the prediction intervals drawn from it. One test case:
// the cross-validation simulates the whole set several times, and CTest runs each test case in a process
// of its own.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "driver/calibration.h"
#include "driver/prediction_interval.h"
#include "interval_table_check.h"
#include "driver/validation.h"
#include "configs/catalog.h"

using namespace hpcsim;

namespace {

const std::filesystem::path kConfigDir = HPCSIM_SOURCE_CONFIG_DIR;
const std::filesystem::path kValidationDir = kConfigDir / "validation";

// Words in backticks in the bullets (first lines "- ...", continuation lines indented) of
// docs/validation.md's "Known deviations" subsection: the case ids listed there.
std::set<std::string> known_deviations() {
  std::ifstream in(std::filesystem::path(HPCSIM_SOURCE_DIR) / "docs" / "validation.md");
  REQUIRE(in.good());
  std::set<std::string> ids;
  bool inside = false, in_bullet = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) {
      inside = line.find("Known deviations") != std::string::npos;
      continue;
    }
    in_bullet = line.rfind("- ", 0) == 0 || (in_bullet && line.rfind("  ", 0) == 0);
    if (!inside || !in_bullet) continue;
    for (std::size_t open = line.find('`'); open != std::string::npos; open = line.find('`', open + 1)) {
      const std::size_t close = line.find('`', open + 1);
      if (close == std::string::npos) break;
      ids.insert(line.substr(open + 1, close - open - 1));
      open = close;
    }
  }
  return ids;
}

}  // namespace

TEST_CASE("public validation sets: cases, calibration, cross-validation and prediction intervals", "[validation][cv]") {
  const SpecCatalog catalog(kConfigDir);
  const CrossValidation cv = cross_validate(kValidationDir, catalog);
  const ValidationReport& report = cv.in_sample;
  std::cout << "\nPublic validation sets (" << kValidationDir.string() << "):\n"
            << render_validation(report, ValidationFormat::table) << "\nCross-validation (hpcsim validate --cv):\n"
            << render_cross_validation(cv, CrossValidationFormat::table) << std::flush;

  // Every case parses, runs and gives a finite prediction; ids are unique; each names category and family.
  std::size_t scenario_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kValidationDir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml" && e.path().filename() != "microbenchmarks.yaml") {
      ++scenario_files;
    }
  }
  std::size_t scenarios = 0;
  std::set<std::string> ids;
  for (const ValidationRow& row : report.rows) {
    INFO(row.id);
    CHECK(ids.insert(row.id).second);
    CHECK(std::isfinite(row.predicted));
    CHECK(row.predicted > 0);
    CHECK(row.measured > 0);
    CHECK_FALSE(row.source.empty());
    CHECK_FALSE(row.family.empty());
    CHECK_FALSE(row.category.empty());
    CHECK(row.error == Approx((row.predicted - row.measured) / row.measured));
    if (row.kind == "scenario") ++scenarios;
  }
  CHECK(scenarios == scenario_files);
  CHECK(scenarios >= 80);  // both public sets
  for (const char* kind : {"gemm", "allreduce", "lstm"}) {
    INFO(kind);
    CHECK(std::any_of(report.rows.begin(), report.rows.end(), [&](const ValidationRow& r) { return r.kind == kind; }));
  }

  // The same inputs give the same table (a subset re-run: the fast cases).
  const ValidationReport again = run_validation(kValidationDir, catalog, [](const std::string& id) {
    return id.find("mlperf") == std::string::npos && id.find("llm") == std::string::npos;
  });
  for (const ValidationRow& row : again.rows) {
    const auto same = std::find_if(report.rows.begin(), report.rows.end(), [&](const ValidationRow& r) { return r.id == row.id; });
    REQUIRE(same != report.rows.end());
    CHECK(same->predicted == row.predicted);
  }

  // Accuracy (issue 11): MAPE at most 12 % over both sets; each case within its band or listed under
  // Known deviations in docs/validation.md, and under 40 % unless listed.
  const std::set<std::string> listed = known_deviations();
  CHECK(report.mape <= 0.12);
  for (const ValidationRow& row : report.rows) {
    INFO(row.id << ": error " << row.error * 100 << " %, band " << row.band * 100 << " %");
    CHECK((row.within_band() || listed.count(row.id) == 1));
    if (listed.count(row.id) == 0) CHECK(std::abs(row.error) < 0.40);
  }

  // Calibrated parameters: the shipped values are the fit over every row (to 1 %), and none is a per-case
  // constant: each is informed by at least three rows from at least two source families.
  std::printf("\nparameter          shipped   fitted  rows  families\n");
  REQUIRE(cv.parameters.size() == catalog.calibrated().size());
  for (const ParameterFit& p : cv.parameters) {
    std::printf("%-16s %8.4f %8.4f %5zu %9d\n", p.name.c_str(), p.shipped, p.fitted, p.rows.size(), p.families);
    INFO(p.name << ": refit with `hpcsim validate --fit`");
    CHECK(p.fitted == Approx(p.shipped).epsilon(0.01));
    CHECK(p.rows.size() >= 3);
    CHECK(p.families >= 2);
  }

  // Cross-validation: every family is left out once; the cross-validated MAPE stays at most 18 %.
  std::map<std::string, int> families;
  for (const ValidationRow& row : report.rows) ++families[row.family];
  CHECK(cv.folds.size() == families.size());
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    INFO(report.rows[i].id);
    CHECK(std::isfinite(cv.predicted[i]));
    CHECK(cv.error[i] == Approx((cv.predicted[i] - report.rows[i].measured) / report.rows[i].measured));
  }
  std::printf("MAPE in-sample %.1f %%, cross-validated %.1f %% over %zu rows\n", report.mape * 100, cv.mape * 100,
              report.rows.size());
  CHECK(cv.mape <= 0.18);

  // Prediction intervals: the shipped table is the derivation from this cross-validation, and the measured
  // value falls inside its row's interval for at least 80 % of the rows.
  const IntervalTable shipped = IntervalTable::load(kConfigDir);
  const IntervalTable derived = IntervalTable::derive(cv);
  {
    INFO("regenerate with: hpcsim validate --intervals > configs/prediction-intervals.yaml");
    test::check_same_intervals(shipped, derived);
  }
  // Coverage over every training row: in-sample against the shipped table, and family-out (issue 36: each
  // row's interval derived without its source family, its prediction the cross-validated one).
  const IntervalCoverage c = shipped.coverage(cv);
  REQUIRE(c.rows > 0);
  std::printf("interval coverage: %d of %d rows (%.0f %%); with each row's family left out of its interval: %d (%.0f %%)\n",
              c.in_sample, c.rows, 100.0 * c.in_sample / c.rows, c.family_out, 100.0 * c.family_out / c.rows);
  std::fflush(stdout);
  CHECK(c.in_sample >= 0.8 * c.rows);
  // Issue 36: at least 80 % family-out (85 of 103 with split-conformal bands; docs/validation.md,
  // "Prediction intervals").
  CHECK(c.family_out >= 0.8 * c.rows);
  // No entry is drawn from one source family (IntervalTable::kMinFamilies).
  for (const IntervalEntry& e : shipped.entries()) {
    INFO(e.cls);
    CHECK(e.families >= IntervalTable::kMinFamilies);
  }
}

// Calibrated parameters (configs/calibration.yaml) on small made-up sets: the solver recovers a known
// value, cross-validation leaves each family out, a parameter fills only the specs that lack it, and a
// malformed calibration file is refused at its location. The shipped set: public_validation_test.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "driver/calibration.h"
#include "analysis/temp_path.h"
#include "configs/catalog.h"
#include "configs/config_error.h"

using namespace hpcsim;
using hpcsim::test::TempPath;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

// A validation folder holding only microbenchmarks.yaml with `entries`.
std::filesystem::path folder_with(const TempPath& dir, const std::string& entries) {
  std::filesystem::create_directories(dir.str());
  std::ofstream(std::filesystem::path(dir.str()) / "microbenchmarks.yaml") << "benchmarks:\n" << entries;
  return dir.str();
}

std::string gemm_entry(const std::string& id, const std::string& family, int k, double tflops) {
  char value[64];
  std::snprintf(value, sizeof value, "%.17g", tflops);
  return "  - id: " + id + "\n    gpu: a100-sxm4-80gb\n    gemm: {m: 3456, n: 4096, k: " + std::to_string(k) +
         ", precision: fp16}\n    measured: {metric: tflops, value: " + value +
         ", unit: \"TFLOP/s\", source: test, category: micro, family: " + family + "}\n";
}

}  // namespace

TEST_CASE("calibration: the solver recovers the value measurements were made with", "[calibration]") {
  // Three GEMMs "measured" with tensor_matmul = truth; the fit from the shipped value finds it again.
  const std::vector<CalibratedParameter>& params = catalog().calibrated();
  REQUIRE(params.front().name == "tensor_matmul");
  for (double truth : {0.86, 0.93, 0.6}) {  // 0.6 lies below tensor_matmul's bound: the fit stops there
    const TempPath dir("calibration");
    std::vector<double> values;
    for (const CalibratedParameter& p : params) values.push_back(p.name == "tensor_matmul" ? truth : p.value);
    std::string entries;
    int i = 0;
    for (int k : {1024, 4096, 8192}) {
      const std::string id = "g" + std::to_string(i++);
      const std::filesystem::path probe = folder_with(dir, gemm_entry(id, "f", k, 100));
      const double at_truth = run_validation(probe, catalog().with_calibrated_values(values)).rows.at(0).predicted;
      entries += gemm_entry(id, i == 1 ? "a" : "b", k, at_truth);
    }
    const CalibrationResult fit = fit_calibrations(folder_with(dir, entries), catalog());
    const double bound = params.front().min;
    if (truth < bound) {
      CHECK(fit.parameters.front().fitted == Approx(bound));
      continue;
    }
    CHECK(fit.parameters.front().fitted == Approx(truth).epsilon(1e-3));
    CHECK(fit.parameters.front().rows.size() == 3);
    CHECK(fit.parameters.front().families == 2);
    CHECK(fit.fitted.mape < 1e-3);
    // Leaving family "a" out still fits "b"'s rows exactly and predicts "a"'s row.
    const CrossValidation cv = cross_validate(dir.str(), catalog());
    REQUIRE(cv.folds.size() == 2);
    CHECK(cv.folds[0].family == "a");
    CHECK(cv.folds[0].values.front() == Approx(truth).epsilon(0.01));
    CHECK(cv.mape < 0.01);  // one linearised solve from the shipped 0.84, far from the truth here
  }
}

TEST_CASE("calibration: a malformed calibration.yaml is refused where it is written", "[calibration]") {
  auto error_of = [](const std::string& text) {
    const TempPath dir("calibration-root");
    std::filesystem::create_directories(dir.str());
    std::ofstream(std::filesystem::path(dir.str()) / "calibration.yaml") << text;
    try {
      SpecCatalog c(dir.str());
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      return what.substr(what.find("calibration.yaml"));
    }
    return std::string("no error");
  };
  const std::string head = "parameters:\n  - {name: x, kind: gpus, path: achievable.matmul, ";
  CHECK(error_of(head + "value: 1.5, min: 0.1, max: 1}\n") ==
        "calibration.yaml:2:59: x: value must lie in [min, max] with min < max");
  CHECK(error_of(head + "value: 0.5, min: 0.1, max: 1}\n" + "  - {name: x, kind: gpus, path: a, value: 1, min: 0, max: 2}\n")
            .find("parameter x is given twice") != std::string::npos);
  CHECK(error_of("parameters:\n  - {name: x, kind: cpus, path: a, value: 1, min: 0, max: 2}\n").find("calibration.yaml:2:") == 0);
  CHECK(error_of("parameters: []\n") == "no error");
}

TEST_CASE("calibration: a parameter fills only the specs that do not set it", "[calibration]") {
  const ConfigNode a100 = catalog().load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU");
  const ConfigNode mi300x = catalog().load("gpus", ConfigNode::make_scalar("mi300x", SourceLoc{}), "GPU");
  CHECK(a100.at("achievable").get_number("matmul") == catalog().calibrated().front().value);
  CHECK(mi300x.at("achievable").get_number("matmul") == 0.514);  // its own sourced measurement
  std::vector<double> moved;
  for (const CalibratedParameter& p : catalog().calibrated()) moved.push_back(p.value * 0.5);
  const ConfigNode half = catalog().with_calibrated_values(moved).load(
      "gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU");
  CHECK(half.at("achievable").get_number("matmul") == catalog().calibrated().front().value * 0.5);
}

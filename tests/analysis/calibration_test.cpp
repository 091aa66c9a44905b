// Calibration fits: every fitted spec parameter the shipped validation set calibrates is the least-squares
// fit it claims to be (to the 3 decimals specs write), the solver recovers a known fraction, and a bad
// `calibrates` value is refused at its location.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/calibration.h"
#include "analysis/temp_path.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/op_kernel.h"

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

std::string gemm_entry(const std::string& calibrates, double tflops) {
  char value[64];
  std::snprintf(value, sizeof value, "%.17g", tflops);
  return "  - id: g\n    calibrates: \"" + calibrates + "\"\n    gpu: a100-sxm4-80gb\n"
         "    gemm: {m: 3456, n: 4096, k: 8192, precision: fp16}\n"
         "    measured: {metric: tflops, value: " + value + ", unit: \"TFLOP/s\", source: test}\n";
}

double a100_fp16_tflops(double matmul_fraction) {
  GpuSpec gpu = parse_gpu_spec(catalog().load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU"),
                               "a100-sxm4-80gb");
  gpu.matmul_fraction = matmul_fraction;
  const GemmShape shape{3456, 4096, 8192, 1, Precision::fp16};
  return 2.0 * 3456 * 4096 * 8192 / estimate_op(gpu, {gemm(gpu, shape)}).time_s / 1e12;
}

}  // namespace

TEST_CASE("calibration: every shipped fitted parameter is its rows' least-squares fit", "[calibration]") {
  const std::vector<CalibrationFit> fits =
      fit_calibrations(std::filesystem::path(HPCSIM_SOURCE_CONFIG_DIR) / "validation", catalog());
  REQUIRE(fits.size() >= 5);
  for (const CalibrationFit& f : fits) {
    INFO(f.spec << " " << f.parameter << ": shipped " << f.shipped << ", fitted " << f.fitted);
    CHECK(std::abs(f.fitted - f.shipped) <= 0.0005 + 1e-12);  // specs write fractions to 3 decimals
    CHECK(f.rms_fitted <= f.rms_shipped + 1e-12);
    CHECK_FALSE(f.rows.empty());
  }
  const std::string table = render_calibrations(fits);
  CHECK(table.find("a100-sxm4-80gb   achievable.matmul") != std::string::npos);
}

TEST_CASE("calibration: the solver recovers the fraction a measurement was made with", "[calibration]") {
  for (double truth : {0.55, 0.7, 0.93}) {
    const TempPath dir("calibration");
    const auto fits = fit_calibrations(folder_with(dir, gemm_entry("a100-sxm4-80gb achievable.matmul", a100_fp16_tflops(truth))),
                                       catalog());
    REQUIRE(fits.size() == 1);
    CHECK(fits[0].fitted == Approx(truth).epsilon(1e-6));
    CHECK(fits[0].shipped == 0.815);
    CHECK(fits[0].rms_fitted < 1e-8);
  }
  // Two rows measured 10 % apart pull the fit between them: residuals +-5 % around their mean.
  const TempPath dir("calibration");
  const double at = a100_fp16_tflops(0.7);
  const auto fits = fit_calibrations(
      folder_with(dir, gemm_entry("a100-sxm4-80gb achievable.matmul", at * 1.05) +
                           gemm_entry("a100-sxm4-80gb achievable.matmul", at * 0.95)),
      catalog());
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].rows.size() == 2);
  CHECK(fits[0].fitted == Approx(0.7).epsilon(0.01));
  CHECK(fits[0].rms_fitted == Approx(0.05).epsilon(0.02));
}

TEST_CASE("calibration: a calibrates value that cannot be fitted is refused where it is written", "[calibration]") {
  auto error_of = [](const std::string& entries) {
    const TempPath dir("calibration");
    try {
      fit_calibrations(folder_with(dir, entries), catalog());
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      return what.substr(what.find("microbenchmarks.yaml"));
    }
    return std::string("no error");
  };
  CHECK(error_of(gemm_entry("a100-sxm4-80gb achievable.clock", 200)) ==
        "microbenchmarks.yaml:3:17: unknown parameter achievable.clock (fittable: achievable.matmul, "
        "achievable.simt_matmul, achievable.memory)");
  CHECK(error_of(gemm_entry("a100-sxm4-80gb", 200)) == "microbenchmarks.yaml:3:17: calibrates is \"<gpu spec> <parameter>\"");
  CHECK(error_of(gemm_entry("no-such-gpu achievable.matmul", 200)).find("no-such-gpu") != std::string::npos);
  CHECK(error_of("  - id: a\n    calibrates: \"a100-sxm4-80gb achievable.memory\"\n"
                 "    cluster: {node: dgx-a100-80gb, nodes: 1}\n    allreduce: {bytes: 1GiB, gpus: 8}\n"
                 "    measured: {metric: busbw, value: 200, unit: \"GB/s\", source: test}\n")
            .find("only gemm and lstm rows calibrate a GPU spec") != std::string::npos);
}

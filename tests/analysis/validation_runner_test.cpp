// The validation runner on small case folders written by the test: metrics read the way they are
// defined, errors signed and relative, MAPE and worst case, bad case files rejected at their key.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/temp_path.h"
#include "driver/validation.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/simulate_scenario.h"

using namespace hpcsim;
using hpcsim::test::TempPath;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

std::string resnet_case(const std::string& metric, double value) {
  return "cluster: {node: dgx-a100-80gb, gpus_per_node: 1}\n"
         "workload: {model: resnet50, batch_per_gpu: 64, precision: fp16, optimizer: momentum}\n"
         "measured: {metric: " + metric + ", value: " + std::to_string(value) +
         ", unit: x, source: test, trust: high, category: cnn, family: f}\n";
}

double simulated_samples_per_s(const std::filesystem::path& file) {
  return simulate_scenario(parse_training_scenario(load_config(file, {}), catalog(), "x")).result.samples_per_s;
}

}  // namespace

TEST_CASE("validation rows: metrics, signed relative errors, MAPE and the worst case", "[validation]") {
  TempPath dir("validation");
  std::filesystem::create_directories(dir.str());
  const std::filesystem::path a = std::filesystem::path(dir.str()) / "a.yaml";
  const std::filesystem::path b = std::filesystem::path(dir.str()) / "b.yaml";
  write(a, resnet_case("samples_per_s", 1000));
  write(b, resnet_case("s_per_kimg", 2.0));
  const double samples = simulated_samples_per_s(a);

  const ValidationReport r = run_validation(dir.str(), catalog());
  REQUIRE(r.rows.size() == 2);
  CHECK(r.rows[0].id == "a");  // the file stem names a case without name:
  CHECK(r.rows[0].predicted == Approx(samples));
  CHECK(r.rows[0].error == Approx(samples / 1000 - 1));
  CHECK(r.rows[1].predicted == Approx(1000 / samples));  // seconds per thousand images
  CHECK(r.rows[1].error == Approx((1000 / samples - 2.0) / 2.0));
  CHECK(r.rows[0].band == 0.25);
  CHECK(r.mape == Approx((std::abs(r.rows[0].error) + std::abs(r.rows[1].error)) / 2));
  CHECK(r.worst == (std::abs(r.rows[0].error) >= std::abs(r.rows[1].error) ? 0 : 1));
}

TEST_CASE("validation microbenchmarks: a GEMM's TFLOP/s, an all-reduce's bus bandwidth, an LSTM's time",
          "[validation]") {
  TempPath dir("validation-micro");
  std::filesystem::create_directories(dir.str());
  write(std::filesystem::path(dir.str()) / "microbenchmarks.yaml",
        "benchmarks:\n"
        "  - {id: g, gpu: a100-sxm4-80gb, gemm: {m: 4096, n: 4096, k: 4096, precision: bf16},\n"
        "     measured: {metric: tflops, value: 250, unit: TFLOP/s, source: s, trust: medium, category: micro, family: f}}\n"
        "  - {id: r, cluster: {node: dgx-a100-80gb}, allreduce: {bytes: 1 GiB, gpus: 8},\n"
        "     measured: {metric: busbw, value: 200, unit: GB/s, source: s, category: micro, family: f}}\n"
        "  - {id: l, gpu: v100-sxm2-16gb, lstm: {hidden: 1024, batch: 64, steps: 10, precision: fp16, pass: forward},\n"
        "     measured: {metric: time_ms, value: 1, unit: ms, source: s, category: micro, family: f}}\n");
  const ValidationReport r = run_validation(dir.str(), catalog());
  REQUIRE(r.rows.size() == 3);
  CHECK(r.rows[0].kind == "gemm");
  CHECK(r.rows[0].predicted > 100);  // an A100 runs a large bf16 GEMM at a good part of its 312 TFLOP/s
  CHECK(r.rows[0].predicted < 312);
  CHECK(r.rows[0].band == 0.35);     // trust below high
  CHECK(r.rows[1].kind == "allreduce");
  CHECK(r.rows[1].predicted > 50);   // NVSwitch: 300 GB/s per direction per GPU
  CHECK(r.rows[1].predicted < 300);
  CHECK(r.rows[2].kind == "lstm");
  CHECK(r.rows[2].predicted > 0);
}

TEST_CASE("validation cases that are not valid are ConfigErrors at their key", "[validation]") {
  TempPath dir("validation-bad");
  std::filesystem::create_directories(dir.str());
  const std::filesystem::path micro = std::filesystem::path(dir.str()) / "microbenchmarks.yaml";

  SECTION("a scenario without a measurement") {
    write(std::filesystem::path(dir.str()) / "a.yaml",
          "cluster: {node: dgx-a100-80gb, gpus_per_node: 1}\n"
          "workload: {model: resnet50, batch_per_gpu: 64, precision: fp16, optimizer: momentum}\n");
    CHECK_THROWS_WITH(run_validation(dir.str(), catalog()), Catch::Contains("measured"));
  }
  SECTION("a microbenchmark with two ops") {
    write(micro, "benchmarks:\n  - {id: g, gpu: a100-sxm4-80gb, gemm: {m: 1, n: 1, k: 1, precision: bf16},\n"
                 "     lstm: {hidden: 1, batch: 1, steps: 1, precision: fp16, pass: forward},\n"
                 "     measured: {metric: tflops, value: 1, unit: TFLOP/s, source: s, category: micro, family: f}}\n");
    CHECK_THROWS_AS(run_validation(dir.str(), catalog()), ConfigError);
  }
  SECTION("a metric that does not belong to the op") {
    write(micro, "benchmarks:\n  - {id: g, gpu: a100-sxm4-80gb, gemm: {m: 1, n: 1, k: 1, precision: bf16},\n"
                 "     measured: {metric: busbw, value: 1, unit: GB/s, source: s, category: micro, family: f}}\n");
    CHECK_THROWS_WITH(run_validation(dir.str(), catalog()), Catch::Contains("microbenchmarks.yaml:3"));
  }
  SECTION("a precision the GPU lacks") {
    write(micro, "benchmarks:\n  - {id: g, gpu: v100-sxm2-16gb, gemm: {m: 8, n: 8, k: 8, precision: bf16},\n"
                 "     measured: {metric: tflops, value: 1, unit: TFLOP/s, source: s, category: micro, family: f}}\n");
    CHECK_THROWS_WITH(run_validation(dir.str(), catalog()), Catch::Contains("no bf16"));
  }
  SECTION("a folder that does not exist") {
    CHECK_THROWS_AS(run_validation(std::filesystem::path(dir.str()) / "none", catalog()), std::runtime_error);
  }
}

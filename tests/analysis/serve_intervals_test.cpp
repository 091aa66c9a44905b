// Prediction intervals for serve predictions (driver/serve_intervals.h; issue 37): the shipped table is the
// derivation from the serving rows, its coverage family-out, the two-family rule, and the serve report's
// <metric>_interval keys.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "interval_table_check.h"
#include "driver/scenario_run.h"
#include "driver/serve_intervals.h"
#include "driver/validation.h"

using namespace hpcsim;

namespace {

const std::filesystem::path kConfigDir = HPCSIM_SOURCE_CONFIG_DIR;

const ValidationReport& serve_rows() {
  static const ValidationReport report = run_serve_validation(kConfigDir / "validation", SpecCatalog(kConfigDir));
  return report;
}

ValidationRow row(const std::string& cls, const std::string& family, double predicted, double measured = 1) {
  ValidationRow r;
  r.id = family + std::to_string(predicted);
  r.metric = "latency_s.mean";
  r.category = cls.substr(cls.find('/') + 1);
  r.interval_class = cls;
  r.family = family;
  r.measured = measured;
  r.predicted = predicted;
  return r;
}

std::optional<double> value(const Report& r, const std::string& name) {
  for (const Metric& m : r.metrics) {
    if (m.name == name) return m.value;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("serve intervals: a serve latency is a time, a serve rate is not", "[serve][intervals]") {
  for (const char* time : {"latency_s.p99", "latency_s.mean", "ttft_s.p99", "tpot_s.p50", "step_time_s", "time_ms"}) {
    INFO(time);
    CHECK(is_time_metric(time));
  }
  for (const char* rate : {"throughput_rps", "max_rate.rate_rps", "output_tokens_per_s", "samples_per_s", "tokens_per_s"}) {
    INFO(rate);
    CHECK_FALSE(is_time_metric(rate));
  }
}

TEST_CASE("serve intervals: each serving row's class is its case's category", "[serve][intervals]") {
  REQUIRE_FALSE(serve_rows().rows.empty());
  for (const ValidationRow& r : serve_rows().rows) {
    INFO(r.id);
    CHECK(r.interval_class == "serve/" + r.category);  // from the scenario (CPU, GPU or LLM), not the case's label
  }
}

TEST_CASE("serve intervals: an entry needs rows from two source families", "[serve][intervals]") {
  ValidationReport one_family;
  for (double p : {0.8, 0.9, 1.0, 1.1, 1.2, 1.3}) one_family.rows.push_back(row("serve/cpu-infer", "a", p));
  CHECK(derive_serve_intervals(one_family).entries().empty());  // six rows, one family: no band at all
  ValidationReport two = one_family;
  two.rows.push_back(row("serve/gpu-infer", "b", 2.0));
  const IntervalTable table = derive_serve_intervals(two);
  REQUIRE(table.entries().size() == 2);  // only "*" and "serve/*" draw from both families
  for (const IntervalEntry& e : table.entries()) {
    INFO(e.cls);
    CHECK((e.cls == "*" || e.cls == "serve/*"));
    CHECK(e.rows == 7);
    // A latency predicted 20 % too slow has ratio 1.2: the band holds the ratios' central 90 %.
    CHECK(e.low_ratio == Approx(0.8));
    CHECK(e.high_ratio == Approx(2.0));
  }
  CHECK(table.lookup("serve/cpu-infer")->cls == "serve/*");  // the one-family class falls back
}

TEST_CASE("serve intervals: the shipped table is the derivation, and its coverage in-sample and family-out",
          "[serve][intervals][validation]") {
  const IntervalTable shipped = load_serve_intervals(kConfigDir);
  const IntervalTable derived = derive_serve_intervals(serve_rows());
  {
    INFO("regenerate with: hpcsim validate --serve-intervals > configs/serving-intervals.yaml");
    test::check_same_intervals(shipped, derived);
  }
  const std::vector<ServeIntervalCoverage> coverage = serve_interval_coverage(serve_rows(), shipped);
  REQUIRE(coverage.size() == 4);  // cpu-infer, gpu-infer, llm-serve, all
  test::print_coverage(coverage);
  const ServeIntervalCoverage& all = coverage.back();
  CHECK(all.category == "*");
  CHECK(all.rows == static_cast<int>(serve_rows().rows.size()));
  CHECK(all.in_sample >= 0.8 * all.rows);
  // Issue 37 asks for 80 % family-out; the serving rows reach 35 of 37 (95 %). A regression gate at the
  // figure reached (docs/serving.md, "Prediction intervals").
  CHECK(all.family_out >= 35);
}

TEST_CASE("serve intervals: the serve report brackets its headline metrics with the class's band",
          "[serve][intervals]") {
  const IntervalTable table = load_serve_intervals(kConfigDir);
  ScenarioRequest request;
  request.file = (kConfigDir / "validation/inference/gpu-triton-rn50-a100-online-c16-p99.yaml").string();
  const LoadedScenario loaded = load_scenario(request);
  const Report report = run_scenario(loaded, request, SpecCatalog(kConfigDir), IntervalTable{}, "test").record.report;
  const std::optional<IntervalEntry> e = table.lookup("serve/gpu-infer");
  REQUIRE(e);
  const std::optional<double> p99 = value(report, "latency_s.p99");
  REQUIRE(p99);
  CHECK(value(report, "latency_s.p99_interval[0]") == Approx(*p99 / e->high_ratio));
  CHECK(value(report, "latency_s.p99_interval[1]") == Approx(*p99 / e->low_ratio));
  // A closed loop predicts its throughput: a rate's band is the ratio band the other way round.
  const std::optional<IntervalEntry>& t = e;
  const std::optional<double> rps = value(report, "throughput_rps");
  REQUIRE(rps);
  CHECK(value(report, "throughput_rps_interval[0]") == Approx(*rps * t->low_ratio));
  CHECK(value(report, "throughput_rps_interval[1]") == Approx(*rps * t->high_ratio));
  // An open loop at a given rate reads its offered rate back: a band on its latency, none on its throughput.
  request.file = (kConfigDir / "validation/inference/cpu-mlperf31-spr2s-resnet50-int8-server-p99.yaml").string();
  const Report open = run_scenario(load_scenario(request), request, SpecCatalog(kConfigDir), IntervalTable{}, "test").record.report;
  const std::optional<IntervalEntry> cpu = table.lookup("serve/cpu-infer");
  REQUIRE(cpu);
  REQUIRE(value(open, "latency_s.p99"));
  CHECK(value(open, "latency_s.p99_interval[1]") == Approx(*value(open, "latency_s.p99") / cpu->low_ratio));
  CHECK(value(open, "throughput_rps"));
  CHECK_FALSE(value(open, "throughput_rps_interval[0]"));
}

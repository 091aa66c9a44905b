// What `hpcsim run` assumed (driver/assumptions.h): a setting the scenario left to a default is listed,
// with the prediction under its alternative, only where the alternative moves the prediction by more than
// 3 %, and the interval widens to cover it; a stated setting is never listed; the step itself is unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "driver/assumptions.h"
#include "driver/prediction_interval.h"
#include "driver/training_scenario_run.h"
#include "report/report_render.h"
#include "workloads/scenario/simulate_scenario.h"

using namespace hpcsim;

namespace {

// ResNet-50 in bf16 on one A100 under PyTorch: NCHW by default, where cuDNN's tensor-core convolutions
// transpose to NHWC and back.
const std::string kResnet = R"(name: rn50-a100
cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}
workload: {model: resnet50, batch_per_gpu: 128, precision: bf16, framework: pytorch, optimizer: sgd}
parallelism: {}
)";

struct Run {
  TrainingScenario scenario;
  TrainingScenarioRun run;
};

Run run_text(const std::string& text) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode root = parse_config_text(text, "scenario.yaml");
  Run r{parse_training_scenario(root, catalog, "s"), {}};
  r.run = run_training_scenario(r.scenario, root, IntervalTable::load(HPCSIM_SOURCE_CONFIG_DIR), "test", false, false, true);
  return r;
}

const Assumption* find(const std::vector<Assumption>& list, const std::string& setting) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const Assumption& a) { return a.setting == setting; });
  return it == list.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("run: an unstated memory format that moves the prediction is listed and covered", "[assumptions]") {
  const Run r = run_text(kResnet);
  REQUIRE(r.run.assumptions);
  const Assumption* format = find(*r.run.assumptions, "workload.memory_format");
  REQUIRE(format != nullptr);
  CHECK(format->assumed == "nchw");
  CHECK(format->default_of == "framework pytorch");
  REQUIRE(format->alternatives.size() == 1);
  const AssumptionAlternative& nhwc = format->alternatives[0];
  CHECK(nhwc.value == "nhwc");
  const double predicted = r.run.step.result.step_time_s;
  std::printf("resnet50 bf16 A100: nchw %.4f s, nhwc %.4f s (%+.1f %%)\n", predicted, nhwc.step_time_s, nhwc.change * 100);
  CHECK(std::abs(nhwc.change) > kAssumptionThreshold);
  CHECK(nhwc.change == Approx(nhwc.step_time_s / predicted - 1));

  // The alternative's prediction is exactly the run with the key stated, and then nothing is assumed about it.
  std::string with_nhwc = kResnet;
  with_nhwc.replace(with_nhwc.find("optimizer: sgd"), 14, "optimizer: sgd, memory_format: nhwc");
  const Run explicit_nhwc = run_text(with_nhwc);
  CHECK(explicit_nhwc.run.step.result.step_time_s == nhwc.step_time_s);
  REQUIRE(explicit_nhwc.run.assumptions);
  CHECK(find(*explicit_nhwc.run.assumptions, "workload.memory_format") == nullptr);

  // The step is the plain simulation's; the interval holds both predictions and the band each would have had.
  CHECK(predicted == simulate_scenario(r.scenario).result.step_time_s);
  REQUIRE(r.run.interval);
  REQUIRE(explicit_nhwc.run.interval);
  const PredictionInterval& band = *r.run.interval;
  CHECK(band.low_s <= std::min(predicted, nhwc.step_time_s));
  CHECK(band.high_s >= std::max(predicted, nhwc.step_time_s));
  const std::optional<PredictionInterval> plain =
      IntervalTable::load(HPCSIM_SOURCE_CONFIG_DIR).interval(prediction_class(r.scenario), predicted);
  REQUIRE(plain);
  CHECK(band.low_s <= plain->low_s);
  CHECK(band.high_s >= plain->high_s);
  CHECK(band.low_s <= explicit_nhwc.run.interval->low_s * (1 + 1e-12));
  CHECK(band.high_s >= explicit_nhwc.run.interval->high_s * (1 - 1e-12));

  // Printed: the JSON key and the table section.
  const std::string json = render_report(r.run.record.report, "json");
  CHECK(json.find("\"assumptions\": [") != std::string::npos);
  CHECK(json.find("\"setting\": \"workload.memory_format\"") != std::string::npos);
  CHECK(render_report(r.run.record.report, "table").find("workload.memory_format = nchw") != std::string::npos);
}

TEST_CASE("run: settings that do not apply or do not move the prediction are not listed", "[assumptions]") {
  // A transformer on one GPU: no convolution (no memory format), no tp (no sequence parallelism), no
  // data-parallel reduce (no overlap); attention is listed only if its alternative moves the step by 3 %.
  const Run gpt = run_text(R"(name: gpt
cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}
workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, seq_len: 2048, vocab: 50257, batch_per_gpu: 4, precision: bf16,
           optimizer: adamw}
parallelism: {}
)");
  REQUIRE(gpt.run.assumptions);
  for (const Assumption& a : *gpt.run.assumptions) {
    INFO(a.setting);
    CHECK(a.setting == "workload.attention");
    CHECK(std::abs(a.alternatives.at(0).change) > kAssumptionThreshold);
  }
  // Everything stated: nothing assumed, and the interval is the table's.
  const Run all = run_text(R"(name: gpt-stated
cluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}
workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, seq_len: 2048, vocab: 50257, batch_per_gpu: 4, precision: bf16,
           optimizer: adamw, attention: flash, overlap_gradient_reduce: true}
parallelism: {tp: 2, sequence_parallel: false}
)");
  REQUIRE(all.run.assumptions);
  CHECK(all.run.assumptions->empty());
  const std::optional<PredictionInterval> plain = IntervalTable::load(HPCSIM_SOURCE_CONFIG_DIR)
                                                      .interval(prediction_class(all.scenario), all.run.step.result.step_time_s);
  REQUIRE(plain);
  REQUIRE(all.run.interval);
  CHECK(all.run.interval->low_s == plain->low_s);
  CHECK(all.run.interval->high_s == plain->high_s);
  CHECK(render_report(all.run.record.report, "table").find("assumptions: none") != std::string::npos);
}

TEST_CASE("run: a study point and other reports carry no assumptions key", "[assumptions]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode root = parse_config_text(kResnet, "scenario.yaml");
  const TrainingScenario s = parse_training_scenario(root, catalog, "s");
  const TrainingScenarioRun point = run_training_scenario(s, root, IntervalTable{}, "test");
  CHECK_FALSE(point.assumptions);
  CHECK(render_report(point.record.report, "json").find("assumptions") == std::string::npos);
}

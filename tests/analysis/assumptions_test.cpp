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

TEST_CASE("run: a setting the framework fixes is never an alternative", "[assumptions]") {
  // Megatron-Core / NeMo always run fused attention: unfused attention moves this step by more than 3 %, but
  // a megatron run does not offer it. PyTorch DDP always overlaps its gradient reduce: not offered either.
  const std::string megatron = R"(name: gpt-megatron
cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 2}
workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, seq_len: 2048, vocab: 50257, batch_per_gpu: 4, precision: bf16,
           optimizer: adamw, framework: megatron, overlap_gradient_reduce: false}
parallelism: {tp: 2, sequence_parallel: false}
)";
  const Run m = run_text(megatron);
  REQUIRE(m.run.assumptions);
  CHECK(m.run.assumptions->empty());
  std::string unfused = megatron;
  unfused.replace(unfused.find("framework: megatron"), 19, "framework: megatron, attention: unfused");
  const double moved = run_text(unfused).run.step.result.step_time_s / m.run.step.result.step_time_s - 1;
  CHECK(std::abs(moved) > kAssumptionThreshold);  // it would have been listed, were it open

  // The same transformer under PyTorch, data-parallel over 16 GPUs: the reduce lasts more than the screen, the
  // attention kernel is open (listed only if it moves the step), the overlap is not.
  const Run p = run_text(R"(name: gpt-ddp
cluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}
workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, seq_len: 2048, vocab: 50257, batch_per_gpu: 4, precision: bf16,
           optimizer: adamw, framework: pytorch}
parallelism: {}
)");
  REQUIRE(p.run.assumptions);
  CHECK(p.run.step.allreduce_time_s >= kAssumptionScreen * p.run.step.result.step_time_s);
  CHECK(find(*p.run.assumptions, "workload.overlap_gradient_reduce") == nullptr);
  CHECK_FALSE(open_settings("pytorch").overlap_gradient_reduce);
  CHECK_FALSE(open_settings("megatron").attention);
  CHECK(open_settings("megatron").overlap_gradient_reduce);
  CHECK(open_settings("megatron").sequence_parallel);
  CHECK(open_settings("megatron").tp_comm_overlap);
  CHECK_FALSE(open_settings("pytorch").tp_comm_overlap);
}

TEST_CASE("run: a megatron scenario with sequence parallelism lists the tensor-parallel overlap it left unstated",
          "[assumptions][tp-overlap]") {
  // A 70B-wide GPT at tp 8 on one DGX H100: the blocking tensor-parallel collectives are a large share of the
  // step, and --tp-comm-overlap (Megatron's opt-in) hides most of them.
  const std::string scenario = R"(name: gpt-tp
cluster: {node: dgx-h100, nodes: 1}
workload: {model: gpt, layers: 2, hidden: 8192, heads: 64, seq_len: 4096, vocab: 32000, micro_batch: 1, precision: bf16,
           optimizer: adam, framework: megatron}
parallelism: {tp: 8, sequence_parallel: true}
)";
  const Run p = run_text(scenario);
  REQUIRE(p.run.assumptions);
  const Assumption* overlap = find(*p.run.assumptions, "workload.tp_comm_overlap");
  REQUIRE(overlap != nullptr);
  CHECK(overlap->assumed == "false");
  REQUIRE(overlap->alternatives.size() == 1);
  CHECK(overlap->alternatives[0].value == "true");
  CHECK(overlap->alternatives[0].change < -kAssumptionThreshold);
  // Stated, it is not an assumption.
  const Run stated = run_text(scenario.substr(0, scenario.find("framework: megatron}")) +
                             "framework: megatron, tp_comm_overlap: false}\nparallelism: {tp: 8, sequence_parallel: true}\n");
  REQUIRE(stated.run.assumptions);
  CHECK(find(*stated.run.assumptions, "workload.tp_comm_overlap") == nullptr);
}

TEST_CASE("run: on a large run a compute-only alternative is estimated from one replica, and says so", "[assumptions]") {
  // GPT under PyTorch over 4 DGX A100 nodes; the attention kernel is open. Simulated in full, and estimated
  // (the run's step plus one replica's change) as a run over full_simulation_gpus GPUs would be.
  const std::string text = R"(name: gpt-ddp
cluster: {node: dgx-a100-80gb, nodes: 4, network: ib-hdr}
workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, seq_len: 2048, vocab: 50257, batch_per_gpu: 8, precision: bf16,
           optimizer: adamw, framework: pytorch}
parallelism: {}
)";
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode root = parse_config_text(text, "scenario.yaml");
  const TrainingScenario s = parse_training_scenario(root, catalog, "s");
  const TrainingStepReport step = simulate_scenario(s);
  const std::vector<Assumption> full = unstated_assumptions(s, root, step, 1 << 20);
  const std::vector<Assumption> estimated = unstated_assumptions(s, root, step, 16);
  const Assumption* f = find(full, "workload.attention");
  const Assumption* e = find(estimated, "workload.attention");
  REQUIRE(f != nullptr);
  REQUIRE(e != nullptr);
  const AssumptionAlternative& fa = f->alternatives.at(0);
  const AssumptionAlternative& ea = e->alternatives.at(0);
  CHECK_FALSE(fa.estimated);
  CHECK(ea.estimated);
  CHECK(ea.value == fa.value);
  std::printf("gpt 32 x A100 attention %s: simulated %.4f s (%+.1f %%), estimated %.4f s (%+.1f %%)\n", fa.value.c_str(),
              fa.step_time_s, fa.change * 100, ea.step_time_s, ea.change * 100);
  // The replica's change added at full: within 2 % of the step of the full simulation here, and never smaller.
  CHECK(std::abs(ea.step_time_s - fa.step_time_s) <= 0.02 * step.result.step_time_s);
  CHECK(std::abs(ea.change) >= std::abs(fa.change) - 1e-9);

  // The full simulation is what the run gives with the key stated.
  std::string stated = text;
  stated.replace(stated.find("framework: pytorch"), 18, "framework: pytorch, attention: " + fa.value);
  CHECK(run_text(stated).run.step.result.step_time_s == fa.step_time_s);

  // Printed as an estimate.
  Report report{"s", "training", {}, estimated};
  CHECK(render_report(report, "json").find("\"estimated\": true") != std::string::npos);
  CHECK(render_report(report, "table").find("estimated from one replica") != std::string::npos);
}

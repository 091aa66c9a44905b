// Tensor-parallel communication overlapped with the GEMMs (Megatron-Core --tp-comm-overlap, Transformer
// Engine userbuffers): the chunk pipeline's exposed time against its closed form, the step's exposed
// tensor-parallel time falling to about one chunk of the blocking time, and the key's input checks.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/training/model_training_step.h"
#include "workloads/training/tp_comm_overlap.h"
#include "workloads/training/training_step_plan.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

TrainingScenario scenario(const std::string& yaml) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_training_scenario(parse_config_text(yaml, "test-scenario.yaml"), catalog, "test");
}

std::string error_of(const std::string& yaml) {
  try {
    scenario(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

ClusterConfig one_dgx_h100() {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_cluster(parse_config_text("cluster:\n  node: dgx-h100\n  nodes: 1\n", "test.yaml").at("cluster"), catalog);
}

}  // namespace

TEST_CASE("An overlapped collective exposes one chunk plus the GEMM slowdown while a chunk is in flight", "[tp-overlap]") {
  // GEMM-bound: the first GEMM chunk alone, n - 1 GEMM chunks beside a transfer, the last transfer alone.
  const double c = 1.0, g = 4.0, r = 0.9;
  const int n = 8;
  CHECK(exposed_tp_comm(c, g, n, 1.0) == Approx(c / n).epsilon(1e-12));  // no contention: exactly one chunk
  CHECK(exposed_tp_comm(c, g, n, r) == Approx(c / n + c * (n - 1) / n * (1 - r)).epsilon(1e-12));
  // Communication-bound: the transfers set the pace, the first GEMM chunk is all that hides nothing.
  CHECK(exposed_tp_comm(4.0, 1.0, n, r) == Approx(4.0 - 1.0 * (n - 1) / n).epsilon(1e-12));
  // One chunk is no overlap at all.
  CHECK(exposed_tp_comm(c, g, 1, r) == Approx(c).epsilon(1e-12));
  CHECK(exposed_tp_comm(0, g, n, r) == 0);
  CHECK_THROWS_AS(exposed_tp_comm(c, g, 0, r), std::invalid_argument);
  CHECK_THROWS_AS(exposed_tp_comm(c, g, n, 0), std::invalid_argument);
  CHECK_THROWS_AS(exposed_tp_comm(-1, g, n, r), std::invalid_argument);
}

TEST_CASE("With --tp-comm-overlap a block's tensor-parallel time falls to about one chunk of it", "[tp-overlap]") {
  // A 70B-wide GPT block (hidden 8192, 64 heads, 4K tokens) at tp 8 with sequence parallelism on one DGX H100:
  // the GEMMs outlast the NVLink collectives, so each block region exposes 1/tp of its communication plus
  // what the userbuffers kernels' SMs take from the GEMMs while a chunk is in flight
  // (kTpOverlapForwardSms of 132 in forward, kTpOverlapBackwardSms in backward).
  ModelParams p;
  p.layers = 4, p.hidden = 8192, p.heads = 64, p.seq_len = 4096, p.vocab = 32000;
  const Model model = build_model("gpt", p, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig node = one_dgx_h100();
  TrainingStepConfig run;
  run.layout = {.dp = 1, .tp = 8};
  run.precision = Precision::bf16;
  run.sequence_parallel = true;
  const TrainingStepPlan blocking = plan_training_step(model, node, run);
  run.tp_comm_overlap = true;
  const TrainingStepPlan overlapped = plan_training_step(model, node, run);
  REQUIRE(blocking.stages.size() == 1);
  const StageCost& b = blocking.stages[0];
  const StageCost& o = overlapped.stages[0];
  // Compute is untouched; only the communication ops change.
  CHECK(o.forward_s == b.forward_s);
  CHECK(o.backward_s == b.backward_s);
  const double sms = node.node.gpu.sm_count;
  const double forward_ratio = 1.0 / 8 + 7.0 / 8 * kTpOverlapForwardSms / sms;
  const double backward_ratio = 1.0 / 8 + 7.0 / 8 * kTpOverlapBackwardSms / sms;
  // The vocabulary-parallel embedding's forward reduce (one of 2 x 4 + 1 collectives of equal size) and the
  // unpaired output layer's backward reduce stay blocking, as Megatron runs them outside Transformer Engine.
  CHECK(o.tp_forward_s == Approx(b.tp_forward_s * (8.0 / 9 * forward_ratio + 1.0 / 9)).epsilon(0.02));
  CHECK(o.tp_backward_s == Approx(b.tp_backward_s * (8.0 / 9 * backward_ratio + 1.0 / 9)).epsilon(0.02));
  CHECK(o.tp_forward_s < 0.35 * b.tp_forward_s);

  const TrainingStepReport slow = simulate_training_step(model, node, [&] { auto r = run; r.tp_comm_overlap = false; return r; }());
  const TrainingStepReport fast = simulate_training_step(model, node, run);
  CHECK(fast.result.step_time_s < slow.result.step_time_s);
  CHECK(fast.result.step_time_s == simulate_training_step(model, node, run).result.step_time_s);  // deterministic
  CHECK(fast.memory.total() == slow.memory.total());
}

TEST_CASE("tp_comm_overlap needs tensor and sequence parallelism, as Megatron-Core asserts", "[tp-overlap][scenario]") {
  const std::string base =
      "cluster: {node: dgx-h100, nodes: 1}\n"
      "workload: {model: gpt, layers: 2, hidden: 1024, heads: 16, vocab: 32000, seq_len: 1024, micro_batch: 1,\n"
      "           precision: bf16, optimizer: adamw, framework: megatron, tp_comm_overlap: true}\n";
  CHECK_THAT(error_of(base + "parallelism: {tp: 1}\n"), Catch::Contains("test-scenario.yaml:3:") &&
                                                            Catch::Contains("it needs tp > 1"));
  CHECK_THAT(error_of(base + "parallelism: {tp: 8}\n"),
             Catch::Contains("test-scenario.yaml:3:") && Catch::Contains("needs parallelism.sequence_parallel: true"));
  CHECK_THAT(error_of(base + "parallelism: {tp: 8, sequence_parallel: false}\n"),
             Catch::Contains("needs parallelism.sequence_parallel: true"));
  const TrainingScenario s = scenario(base + "parallelism: {tp: 8, sequence_parallel: true}\n");
  CHECK(s.workload.tp_comm_overlap == true);
  CHECK(training_step_config(s).tp_comm_overlap);
  // Unstated: off (Megatron's default), and not stated.
  const TrainingScenario unstated = scenario(
      "cluster: {node: dgx-h100, nodes: 1}\n"
      "workload: {model: gpt, layers: 2, hidden: 1024, heads: 16, vocab: 32000, seq_len: 1024, micro_batch: 1,\n"
      "           precision: bf16, optimizer: adamw, framework: megatron}\n"
      "parallelism: {tp: 8, sequence_parallel: true}\n");
  CHECK_FALSE(unstated.workload.tp_comm_overlap.has_value());
  CHECK_FALSE(training_step_config(unstated).tp_comm_overlap);
  CHECK_THAT(error_of(base + "parallelism: {tp: 8, sequence_parallel: true}\n" ""),
             Catch::Equals("no error"));
}

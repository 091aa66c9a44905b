// Selective activation recomputation (activation_checkpointing: selective; Megatron's
// --recompute-granularity selective): Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", section 5: recomputing the core attention takes the per-layer activations from
// s b h (34 + 5 a s / h) to 34 s b h (16-bit, with attention dropout, no flash attention), i.e. it drops
// 5 a s^2 b bytes per layer (per tensor-parallel rank: a / t heads), for one core-attention forward per
// layer in backward.
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/training/model_training_step.h"
#include "workloads/training/training_step_plan.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

TrainingScenario scenario(const std::string& yaml) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_training_scenario(parse_config_text(yaml, "test-scenario.yaml"), catalog, "test");
}

ClusterConfig one_dgx_h100() {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_cluster(parse_config_text("cluster:\n  node: dgx-h100\n  nodes: 1\n", "test.yaml").at("cluster"), catalog);
}

const std::string kWorkload =
    "cluster: {node: dgx-h100, nodes: 1}\n"
    "workload: {model: gpt, layers: 2, hidden: 1024, heads: 16, vocab: 32000, seq_len: 1024, micro_batch: 1,\n"
    "           precision: bf16, optimizer: adamw, framework: megatron, activation_checkpointing: ";

}  // namespace

TEST_CASE("Selective recomputation drops 5 a s^2 b bytes per layer without flash attention", "[recompute]") {
  // GPT (attention dropout 0.1, Megatron's default) in bf16 with the unfused attention of the paper's time.
  const std::int64_t layers = 4, seq = 2048, hidden = 4096, heads = 32, b = 2;
  ModelParams p;
  p.layers = layers, p.hidden = hidden, p.heads = heads, p.seq_len = seq, p.vocab = 32000;
  const Model model = build_model("gpt", p, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig node = one_dgx_h100();
  for (const int tp : {1, 8}) {
    TrainingStepConfig run;
    run.layout = {.dp = 1, .tp = tp};
    run.micro_batch = b;
    run.precision = Precision::bf16;
    run.flash_attention = false;
    run.sequence_parallel = tp > 1;
    const TrainingMemory none = training_step_memory(model, node, run);
    run.recompute = Recompute::selective;
    const TrainingMemory selective = training_step_memory(model, node, run);
    const double per_layer = 5.0 * heads * static_cast<double>(seq * seq * b) / tp;  // 5 a s^2 b / t
    // Kept between passes: every layer's 5 a s^2 b / t goes; one layer's comes back while it is recomputed.
    CHECK(none.activations - selective.activations == Approx((layers - 1) * per_layer).epsilon(1e-9));
    const TrainingStepPlan plan = plan_training_step(model, node, run);
    REQUIRE(plan.stages.size() == 1);
    run.recompute = Recompute::none;
    const TrainingStepPlan plain = plan_training_step(model, node, run);
    CHECK(plain.stages[0].activations - plan.stages[0].activations == Approx(layers * per_layer).epsilon(1e-9));
    CHECK(plan.stages[0].checkpoint_working_set == Approx(per_layer).epsilon(1e-9));
    // Korthikanti et al. eq. 1 against eq. 2 (t = 1, no sequence parallelism): the block's activations
    // s b h (34 + 5 a s / h) fall to 34 s b h; the model's own accounting of the block lands near 34 s b h
    // once the probabilities are gone.
    if (tp == 1) {
      const double sbh = static_cast<double>(seq * b * hidden);
      const double block = plan.stages[0].activations / layers;  // embedding and head are small beside 4 blocks
      CHECK(block == Approx(34 * sbh).epsilon(0.25));
      CHECK(plain.stages[0].activations / layers == Approx(sbh * (34 + 5.0 * heads * seq / hidden)).epsilon(0.1));
    }
  }
}

TEST_CASE("Selective recomputation costs one core-attention forward per layer: between none and full", "[recompute]") {
  ModelParams p;
  p.layers = 4, p.hidden = 4096, p.heads = 32, p.seq_len = 4096, p.vocab = 32000;
  const Model model = build_model("gpt", p, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig node = one_dgx_h100();
  TrainingStepConfig run;
  run.layout = {.dp = 1, .tp = 1};
  run.precision = Precision::bf16;
  run.microbatches = 2;
  const TrainingStepReport none = simulate_training_step(model, node, run);
  run.recompute = Recompute::selective;
  const TrainingStepReport selective = simulate_training_step(model, node, run);
  const TrainingStepPlan plan = plan_training_step(model, node, run);
  run.recompute = Recompute::full;
  const TrainingStepReport full = simulate_training_step(model, node, run);
  CHECK(none.result.step_time_s < selective.result.step_time_s);
  CHECK(selective.result.step_time_s < full.result.step_time_s);
  // The step grows by exactly the recomputed attention forwards (one stage: no overlap to hide them).
  CHECK(selective.result.step_time_s - none.result.step_time_s ==
        Approx(plan.stages[0].recompute_s * run.microbatches).epsilon(1e-6));
  // With flash attention the core keeps only its fp32 log-sum-exp per query row: a s b x 4 bytes per layer.
  CHECK(none.memory.activations - selective.memory.activations ==
        Approx((4.0 - 1) * 32 * 4096 * 4).epsilon(1e-9));  // 4 layers' statistics go, one layer's come back
  CHECK(selective.memory.activations > full.memory.activations);
  // Hardware FLOPs count the recomputed cores: more than the model FLOPs, fewer than full recomputation's.
  CHECK(selective.hardware_flops > none.hardware_flops);
  CHECK(selective.hardware_flops < full.hardware_flops);
}

TEST_CASE("activation_checkpointing takes true, false, full and selective", "[recompute][scenario]") {
  CHECK(scenario(kWorkload + "true}\n").workload.recompute == Recompute::full);
  CHECK(scenario(kWorkload + "full}\n").workload.recompute == Recompute::full);
  CHECK(scenario(kWorkload + "selective}\n").workload.recompute == Recompute::selective);
  CHECK(scenario(kWorkload + "false}\n").workload.recompute == Recompute::none);
  CHECK(scenario(kWorkload + "off}\n").workload.recompute == Recompute::none);
  CHECK(training_step_config(scenario(kWorkload + "selective}\n")).recompute == Recompute::selective);
  try {
    scenario(kWorkload + "partial}\n");
    FAIL("partial was taken");
  } catch (const ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("test-scenario.yaml:3:") &&
                                          Catch::Contains("expected true, false, 'full' or 'selective'"));
  }
}

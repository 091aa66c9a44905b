// Megatron sequence parallelism in the training step's memory and time, and the published Llama 3.1 405B
// layout (Dubey et al. 2024, table 4: tp 8, pp 16, dp 128 on 16,384 H100, 8K tokens, no activation
// checkpointing) against the H100's memory.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/training/model_training_step.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

const std::string kLlama405b = std::string(HPCSIM_TEST_DATA_DIR) + "/scenarios/llama31_405b_16384_h100.yaml";

TrainingScenario scenario(const std::string& path, const std::vector<std::string>& overrides = {}) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_training_scenario(load_config(path, overrides), catalog, "test");
}

TrainingMemory memory(const TrainingScenario& s) { return training_step_memory(s.workload.built, s.cluster, training_step_config(s)); }

ClusterConfig one_dgx_h100() {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_cluster(parse_config_text("cluster:\n  node: dgx-h100\n  nodes: 1\n", "test.yaml").at("cluster"), catalog);
}

}  // namespace

TEST_CASE("Sequence parallelism keeps 1/tp of the activations outside tensor-parallel layers", "[memory][sp]") {
  // A 2-block Llama 3 8B on one DGX H100, tp 8, one microbatch: the only activations that differ are the
  // four s x h tensors per block that Megatron without sequence parallelism keeps whole on every rank (the
  // two RMSNorm inputs and the inputs of the QKV and gate/up projections), plus the final norm's input and
  // the output layer's: sequence parallelism keeps 1/tp of each (Korthikanti et al. 2022, section 4.2.2).
  const std::int64_t layers = 2, seq = 2048, hidden = 4096;
  const Model model = build_model("llama3-8b", ModelParams{.seq_len = seq, .layers = layers}, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig node = one_dgx_h100();
  TrainingStepConfig run;
  run.layout = {.dp = 1, .tp = 8};
  run.precision = Precision::bf16;
  const TrainingMemory whole = training_step_memory(model, node, run);
  run.sequence_parallel = true;
  const TrainingMemory split = training_step_memory(model, node, run);

  const double hidden_tensor = static_cast<double>(seq * hidden) * 2;  // bf16
  const double expected_saving = static_cast<double>(4 * layers + 2) * hidden_tensor * (1 - 1.0 / 8);
  CHECK(whole.activations - split.activations == Approx(expected_saving).epsilon(1e-9));
  // Backward's largest pair of gradients is the output layer's: its vocabulary-parallel output (1/tp of the
  // 128,256 logits per token on each GPU) and its whole input.
  const double vocab = 128256;
  CHECK(split.workspace == Approx((vocab / 8 + static_cast<double>(hidden)) * static_cast<double>(seq) * 2).epsilon(1e-12));
  CHECK(whole.workspace == split.workspace);
  // Weights, gradients and optimizer state are the tensor-parallel shards either way.
  CHECK(split.weights == whole.weights);
  CHECK(split.gradients == whole.gradients);
  CHECK(split.optimizer_state == whole.optimizer_state);

  // The norms run on 1/tp of the tokens, the same GEMMs run on the gathered input: the step is faster, and
  // the simulated step reports the memory training_step_memory gives.
  const TrainingStepReport with_sp = simulate_training_step(model, node, run);
  run.sequence_parallel = false;
  const TrainingStepReport without = simulate_training_step(model, node, run);
  CHECK(with_sp.result.step_time_s < without.result.step_time_s);
  CHECK(with_sp.memory.total() == split.total());
  CHECK(without.memory.total() == whole.total());
}

TEST_CASE("The published Llama 3.1 405B layout fits the H100 only with sequence parallelism", "[memory][llama405b]") {
  const TrainingScenario published = scenario(kLlama405b);
  REQUIRE(published.parallelism.layout.gpus() == 16384);
  REQUIRE(published.parallelism.microbatches == 16);
  const double capacity = published.cluster.node.gpu.memory_bytes();
  const TrainingMemory fits = memory(published);
  INFO("published: " << fits.total() / kGiB << " GiB (weights " << fits.weights / kGiB << ", gradients "
                     << fits.gradients / kGiB << ", optimizer " << fits.optimizer_state / kGiB << ", activations "
                     << fits.activations / kGiB << ", workspace " << fits.workspace / kGiB << ")");
  CHECK(fits.total() <= capacity);

  // Without sequence parallelism the same layout does not fit: the norms' and projections' inputs are
  // kept whole on all 8 tensor-parallel ranks, for each of the 16 microbatches the first stage holds.
  const TrainingMemory whole = memory(scenario(kLlama405b, {"parallelism.sequence_parallel=false"}));
  CHECK(whole.total() > capacity);
  CHECK(whole.activations > 1.5 * fits.activations);

  // A clearly impossible layout still reports out of memory: without pipelining each GPU holds an eighth of
  // the model, whose 16-bit weights alone (101 GB) exceed the 80 GiB.
  const TrainingMemory too_big = memory(scenario(kLlama405b, {"parallelism.pp=1", "parallelism.dp=2048"}));
  CHECK(too_big.weights > capacity);
  CHECK(too_big.total() > capacity);
}

TEST_CASE("sequence_parallel is read from the parallelism section and needs tp > 1", "[memory][sp][scenario]") {
  CHECK(scenario(kLlama405b).parallelism.sequence_parallel);
  CHECK(training_step_config(scenario(kLlama405b)).sequence_parallel);
  try {
    scenario(kLlama405b, {"parallelism.tp=1", "parallelism.dp=1024"});
    FAIL("sequence_parallel with tp 1 was accepted");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("sequence_parallel") && Catch::Contains("tp > 1"));
    CHECK_THAT(e.what(), Catch::Contains("llama31_405b_16384_h100.yaml:"));
  }
}

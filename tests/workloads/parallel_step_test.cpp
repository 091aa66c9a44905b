// Model-parallel training steps: pipeline schedules and their bubble, tensor parallelism, ZeRO sharding,
// gradient accumulation, activation checkpointing, GAN updates, and the scenario keys that set them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/training/model_training_step.h"
#include "workloads/training/pipeline_schedule.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

ClusterConfig cluster(const std::string& yaml) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_cluster(parse_config_text("cluster:\n" + yaml, "test-cluster.yaml").at("cluster"), catalog);
}

ClusterConfig dgx_a100(int nodes) {
  return cluster("  node: dgx-a100-80gb\n  nodes: " + std::to_string(nodes) + "\n  network: ib-hdr\n");
}

// Identical wide dense layers (after a cheap activation, so every one computes its input gradient): any
// even cut gives equal pipeline stages.
Model equal_layers(int layers, std::int64_t width = 4096) {
  Network net("mlp");
  net.add_input("x", {1024, width});
  net.add("input_activation", std::make_shared<Activation>(ActivationKind::relu));
  for (int i = 0; i < layers; ++i) net.add("dense" + std::to_string(i), std::make_shared<Linear>(width, false));
  return {"mlp", {net}};
}

Model gpt(int layers, int hidden, int heads, int vocab = 50257) {
  ModelParams p;
  p.layers = layers, p.hidden = hidden, p.heads = heads, p.seq_len = 1024, p.vocab = vocab;
  return build_model("gpt", p, HPCSIM_SOURCE_CONFIG_DIR);
}

TrainingScenario scenario(const std::string& yaml) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_training_scenario(parse_config_text(yaml, "test-scenario.yaml"), catalog, "test");
}

}  // namespace

TEST_CASE("1F1B runs warm-up forwards, then alternates, and holds at most pp - stage microbatches", "[pipeline]") {
  const int pp = 4, m = 8;
  for (int s = 0; s < pp; ++s) {
    const auto order = pipeline_order(PipelineSchedule::one_f_one_b, s, pp, m);
    REQUIRE(order.size() == 2u * m);
    std::set<int> forwarded, backwarded;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const PipelinePass& p = order[i];
      if (p.forward) {
        CHECK(forwarded.insert(p.microbatch).second);
      } else {
        CHECK(forwarded.count(p.microbatch) == 1);  // backward only after its forward
        CHECK(backwarded.insert(p.microbatch).second);
      }
    }
    for (int i = 0; i < pp - s - 1; ++i) CHECK(order[i].forward);
    CHECK_FALSE(order[pp - s].forward);  // the first backward right after the warm-up and one forward
    CHECK(microbatches_in_flight(PipelineSchedule::one_f_one_b, s, pp, m) == pp - s);
  }
  CHECK(microbatches_in_flight(PipelineSchedule::gpipe, 0, pp, m) == m);
}

TEST_CASE("Interleaved order visits every chunk of every microbatch once each way", "[pipeline]") {
  const int pp = 4, m = 8, vp = 2;
  for (int s = 0; s < pp; ++s) {
    const auto order = pipeline_order(PipelineSchedule::interleaved, s, pp, m, vp);
    REQUIRE(order.size() == 2u * m * vp);
    std::set<std::pair<int, int>> f, b;
    for (const PipelinePass& p : order) {
      auto& seen = p.forward ? f : b;
      CHECK(seen.insert({p.microbatch, p.chunk}).second);
      if (!p.forward) CHECK(f.count({p.microbatch, p.chunk}) == 1);
    }
  }
  CHECK_THROWS_AS(pipeline_order(PipelineSchedule::interleaved, 0, 4, 6, 2), std::invalid_argument);
  CHECK_THROWS_AS(pipeline_order(PipelineSchedule::one_f_one_b, 0, 4, 8, 2), std::invalid_argument);
}

TEST_CASE("1F1B with equal stages idles (p-1)/(m+p-1) of the pipeline", "[pipeline]") {
  // Sixteen wide layers per stage: the activations sent between stages take < 1% of a stage's pass.
  const Model model = equal_layers(64, 8192);
  const ClusterConfig c = dgx_a100(1);
  for (int m : {4, 8, 16}) {
    TrainingStepConfig run;
    run.micro_batch = 1, run.microbatches = m, run.layout.dp = 1, run.layout.pp = 4;
    run.optimizer = OptimizerKind::sgd;  // a light update, so the step is nearly all pipeline
    const TrainingStepReport r = simulate_training_step(model, c, run);
    const double expected = 3.0 / (m + 3);
    const double of_step = r.result.breakdown.pipeline_bubble / r.result.step_time_s;
    INFO("m " << m << ": bubble " << r.pipeline_bubble_fraction << " of the pipeline phase, " << of_step
              << " of the step; expected " << expected);
    CHECK(r.pipeline_bubble_fraction == Approx(expected).epsilon(0.05));
    CHECK(of_step == Approx(expected).epsilon(0.08));  // the step also holds the (small) update
    CHECK(of_step < r.pipeline_bubble_fraction);
    CHECK(r.result.breakdown.pipeline_bubble > 0);
    const StepBreakdown& b = r.result.breakdown;
    CHECK(b.compute + b.communication_exposed + b.pipeline_bubble + b.optimizer + b.other ==
          Approx(r.result.step_time_s).epsilon(1e-6));
  }
}

TEST_CASE("Interleaving shrinks the bubble: GPipe holds every microbatch's activations", "[pipeline]") {
  const Model model = equal_layers(16);
  const ClusterConfig c = dgx_a100(1);
  TrainingStepConfig run;
  run.micro_batch = 1, run.microbatches = 8, run.layout.dp = 1, run.layout.pp = 4;
  const TrainingStepReport one_f_one_b = simulate_training_step(model, c, run);
  run.layout.vp = 2, run.schedule = PipelineSchedule::interleaved;
  const TrainingStepReport interleaved = simulate_training_step(model, c, run);
  CHECK(interleaved.pipeline_bubble_fraction < 0.75 * one_f_one_b.pipeline_bubble_fraction);
  run.layout.vp = 1, run.schedule = PipelineSchedule::gpipe;
  const TrainingStepReport gpipe = simulate_training_step(model, c, run);
  CHECK(gpipe.memory.activations > 1.5 * one_f_one_b.memory.activations);
}

TEST_CASE("Layer-wise model parallelism splits CNNs and LSTMs over GPUs: memory spreads, time does not",
          "[pipeline][layerwise]") {
  // Layer-wise model parallelism is a pipeline of one microbatch: each GPU holds a contiguous run of layers
  // (ResNet-50's skip connections and GNMT's encoder-to-attention link cross the cuts), and only one GPU
  // works at a time. Microbatches (GPipe) bring the GPUs back into use.
  const ClusterConfig c = dgx_a100(1);
  for (const char* name : {"resnet50", "gnmt"}) {
    INFO(name);
    const Model model = build_model(name, {}, HPCSIM_SOURCE_CONFIG_DIR);
    TrainingStepConfig run;
    run.micro_batch = 32, run.layout.dp = 1, run.optimizer = OptimizerKind::sgd;
    run.schedule = PipelineSchedule::gpipe;
    const TrainingStepReport one = simulate_training_step(model, c, run);
    run.layout.pp = 4;
    const TrainingStepReport split = simulate_training_step(model, c, run);
    CHECK(split.stages == 4);
    CHECK(split.pipeline_bubble_fraction == Approx(0.75).epsilon(0.05));  // (p - 1) / p idle
    // No speed-up: the same passes run one GPU after another, plus the transfers (the update, now spread
    // over four GPUs, is what little it gains).
    CHECK(split.result.step_time_s > 0.9 * one.result.step_time_s);
    // The most loaded GPU holds a fraction of the weights and activations.
    CHECK(split.memory.weights + split.memory.gradients < 0.75 * (one.memory.weights + one.memory.gradients));
    CHECK(split.memory.activations < 0.75 * one.memory.activations);
    // Eight microbatches over the same 4 GPUs overlap the stages (same micro batch: an LSTM's per-step
    // GEMMs are latency-bound at a few samples, so smaller microbatches would gain little).
    run.microbatches = 8;
    const TrainingStepReport piped = simulate_training_step(model, c, run);
    CHECK(piped.pipeline_bubble_fraction < 0.4);
    CHECK(piped.result.samples_per_s > 1.5 * split.result.samples_per_s);
  }
}

TEST_CASE("Tensor parallelism splits a transformer's weights and work and adds all-reduces", "[tensor]") {
  const Model model = gpt(4, 2048, 16);
  const ClusterConfig c = dgx_a100(1);
  TrainingStepConfig run;
  run.micro_batch = 4, run.layout.dp = 1;
  const TrainingStepReport one = simulate_training_step(model, c, run);
  run.layout.tp = 4;
  const TrainingStepReport four = simulate_training_step(model, c, run);
  CHECK(four.memory.weights == Approx(one.memory.weights / 4).epsilon(0.05));  // norms stay replicated
  CHECK(four.result.step_time_s < one.result.step_time_s / 2);
  CHECK(four.result.breakdown.communication_exposed > 0);
  CHECK(one.result.breakdown.communication_exposed == 0);
  CHECK(four.model_flops == Approx(one.model_flops / 4));
  // A CNN has no tensor-parallel layers.
  CHECK_THROWS_AS(simulate_training_step(build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR), c, run),
                  std::invalid_argument);
}

TEST_CASE("ZeRO stages shard optimizer state, gradients and weights over the data-parallel group", "[zero]") {
  const Model model = gpt(4, 1024, 16);
  const ClusterConfig c = dgx_a100(1);
  TrainingStepConfig run;
  run.micro_batch = 2, run.layout.dp = 8;
  const TrainingStepReport z0 = simulate_training_step(model, c, run);
  run.zero = 1;
  const TrainingStepReport z1 = simulate_training_step(model, c, run);
  run.zero = 2;
  const TrainingStepReport z2 = simulate_training_step(model, c, run);
  run.zero = 3;
  const TrainingStepReport z3 = simulate_training_step(model, c, run);
  CHECK(z1.memory.optimizer_state == Approx(z0.memory.optimizer_state / 8));
  CHECK(z1.memory.gradients == Approx(z0.memory.gradients));
  CHECK(z2.memory.gradients == Approx(z0.memory.gradients / 8));
  CHECK(z3.memory.weights == Approx(z0.memory.weights / 8));
  CHECK(z3.gradient_buckets > z1.gradient_buckets);  // gathers before every unit's forward and backward
  CHECK(z3.allreduce_time_s > z0.allreduce_time_s);
  CHECK(z1.result.breakdown.optimizer < z0.result.breakdown.optimizer / 4);  // each rank updates its shard
}

TEST_CASE("Gradient accumulation runs m passes and reduces once", "[accumulation]") {
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig c = cluster("  node: dgx-a100-80gb\n  nodes: 2\n  network: eth-25g-tcp\n");
  TrainingStepConfig run;
  run.micro_batch = 32, run.layout.dp = 16;
  const TrainingStepReport once = simulate_training_step(model, c, run);
  run.microbatches = 4;
  const TrainingStepReport four = simulate_training_step(model, c, run);
  CHECK(four.gradient_buckets == once.gradient_buckets);
  CHECK(four.result.samples_per_s > once.result.samples_per_s);  // the all-reduce is amortized
  CHECK(four.result.step_time_s < 4 * once.result.step_time_s);
}

TEST_CASE("fp8 training runs the GEMMs in fp8 and the rest in bf16 (Transformer Engine's recipe)", "[precision]") {
  const Model model = gpt(12, 2048, 16, 2048);
  const ClusterConfig h100 = cluster("  node: dgx-h100\n  nodes: 1\n  gpus_per_node: 1\n");
  TrainingStepConfig run;
  run.micro_batch = 4, run.layout.dp = 1;
  run.precision = Precision::bf16;
  const TrainingStepReport bf16 = simulate_training_step(model, h100, run);
  run.precision = Precision::fp8;
  const TrainingStepReport fp8 = simulate_training_step(model, h100, run);
  // Twice the tensor rate for the GEMMs only: faster, by well under 2x.
  CHECK(fp8.result.step_time_s < 0.9 * bf16.result.step_time_s);
  CHECK(fp8.result.step_time_s > 0.55 * bf16.result.step_time_s);
  // GEMM inputs kept as fp8 copies; attention stays FlashAttention in bf16 (no score matrix kept).
  CHECK(fp8.memory.activations < bf16.memory.activations);
  CHECK(fp8.memory.activations > 0.5 * bf16.memory.activations);
  // Master weights, bf16 weights and gradients as in bf16 training.
  CHECK(fp8.memory.weights == Approx(bf16.memory.weights));
  CHECK(fp8.memory.optimizer_state == Approx(bf16.memory.optimizer_state));
  // The A100 has no fp8 tensor cores.
  CHECK_THROWS_AS(simulate_training_step(model, dgx_a100(1), run), std::invalid_argument);
}

TEST_CASE("Activation checkpointing trades a recomputed forward for memory", "[checkpointing]") {
  const Model model = gpt(8, 1024, 16, 8192);
  const ClusterConfig c = dgx_a100(1);
  TrainingStepConfig run;
  run.micro_batch = 4, run.layout.dp = 1;
  const TrainingStepReport plain = simulate_training_step(model, c, run);
  run.recompute = Recompute::full;
  const TrainingStepReport checkpointed = simulate_training_step(model, c, run);
  CHECK(checkpointed.memory.activations < plain.memory.activations / 3);
  CHECK(checkpointed.result.step_time_s > 1.2 * plain.result.step_time_s);
  CHECK(checkpointed.hardware_flops == Approx(plain.model_flops * 4 / 3));
}

TEST_CASE("A GAN step runs d_steps discriminator updates per generator update", "[gan]") {
  const Model model = build_model("dcgan", {}, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig c = dgx_a100(1);
  TrainingStepConfig run;
  run.micro_batch = 64, run.layout.dp = 1;
  const TrainingStepReport one = simulate_training_step(model, c, run);
  run.d_steps = 3;
  const TrainingStepReport three = simulate_training_step(model, c, run);
  CHECK(three.result.step_time_s > 1.5 * one.result.step_time_s);
  CHECK(three.model_flops > one.model_flops);
  run.layout.pp = 2, run.d_steps = 1;
  CHECK_THROWS_AS(simulate_training_step(model, c, run), std::invalid_argument);
}

TEST_CASE("Hybrid dp x tp x pp: GPUs, microbatches and throughput follow the layout", "[hybrid]") {
  const TrainingScenario s = scenario(R"(
cluster: {node: dgx-a100-80gb, nodes: 4, network: ib-hdr}
workload: {model: gpt, layers: 8, hidden: 2048, heads: 16, seq_len: 1024, micro_batch: 2, global_batch: 64,
           precision: bf16, optimizer: adamw, framework: megatron}
parallelism: {tp: 4, pp: 2}
)");
  CHECK(s.parallelism.layout.dp == 4);
  CHECK(s.parallelism.microbatches == 8);
  CHECK(s.global_batch() == 64);
  const TrainingStepReport r = simulate_scenario(s);
  CHECK(r.result.gpus == 32);
  CHECK(r.result.samples_per_s == Approx(64 / r.result.step_time_s));
  CHECK(r.stages == 2);
  CHECK(r.result.tokens_per_s.has_value());
}

TEST_CASE("Inconsistent parallelism and batch settings are errors at their key", "[scenario]") {
  const std::string base = "cluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}\n";
  const std::string gpt_workload =
      "workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, precision: bf16, optimizer: adamw";
  auto error_of = [&](const std::string& yaml) {
    try {
      scenario(base + yaml);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 3, global_batch: 100}\n"),
             Catch::Contains("not a multiple of micro batch 3 x dp 16"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {tp: 8, pp: 4}\n"),
             Catch::Contains("tp x pp x cp = 32 but the cluster has 16 GPUs"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {tp: 3}\n"),
             Catch::Contains("do not divide into"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {vp: 2}\n"), Catch::Contains("needs pp > 1"));
  // Degrees at the integer limit: their products in int wrapped (to -16 stages at vp 2^31-1 and pp 16, past
  // every check, then an internal error), so each is held to the GPUs and multiplied in 64 bits (fuzz finds).
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {tp: 2147483647, pp: 16}\n"),
             Catch::Contains("tp x pp x cp = 2147483647 x 16 x 1 but the cluster has 16 GPUs"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {pp: 16, vp: 2147483647}\n"),
             Catch::Contains("pp x vp = 34359738352 pipeline stages"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {dp: 2147483647, tp: 2}\n"),
             Catch::Contains("dp x tp x pp x cp = 4294967294 but the cluster has 16 GPUs"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {pp: 2, vp: 2, microbatches: 3}\n"),
             Catch::Contains("multiple of pp"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {pp: 2, schedule: interleaved}\n"),
             Catch::Contains("needs vp > 1"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {pp: 2, zero: 2}\n"),
             Catch::Contains("zero: 1 with pp > 1"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {zero: 1, fsdp: true}\n"),
             Catch::Contains("fsdp shards like zero: 3"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, tokens_per_gpu: 4096}\n"), Catch::Contains("not both"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 6, micro_batch: 4}\n"), Catch::Contains("not a multiple of micro_batch"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, d_steps: 2}\n"), Catch::Contains("needs a model with a generator"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, dataset: imagenet-1k}\n"), Catch::Contains("set cluster.storage"));
  CHECK_THAT(error_of(gpt_workload + "}\n"), Catch::Contains("needs batch_per_gpu, micro_batch or tokens_per_gpu"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, framework: torch}\n"), Catch::Contains("pytorch"));
  // The frameworks are the catalog's; an inference runtime among them does not train.
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, framework: tensorrt}\n"),
             Catch::Contains("inference runtime") && Catch::Contains("megatron") && !Catch::Contains("onnxruntime"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {dp: 4, microbatches: 2}\n"), Catch::Contains("no error"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 4, micro_batch: 2, global_batch: 128}\nparallelism: {dp: 16}\n"),
             Catch::Contains("needs 4 microbatches"));
  CHECK_THAT(error_of("workload: {model: resnet50, layers: 24, batch_per_gpu: 8, precision: fp16, optimizer: sgd}\n"),
             Catch::Contains("model 'resnet50' takes no 'layers' (it takes: resolution)"));
  CHECK_THAT(error_of("workload: {model: vgg16, seq_len: 128, batch_per_gpu: 8, precision: fp16, optimizer: sgd}\n"),
             Catch::Contains("takes no 'seq_len'"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, dataset: imagenet-2k}\n"), Catch::Contains("imagenet-1k"));
  try {
    scenario("cluster: {node: dgx-a100-80gb, storage: nfs-2x25}\n" + gpt_workload + ", batch_per_gpu: 1}\n");
    FAIL("an unknown storage name is accepted");
  } catch (const ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("nfs-2x25g") && Catch::StartsWith("test-scenario.yaml:1:"));
  }
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nmeasured: {metric: images_per_s, value: 1, unit: x, source: y}\n"),
             Catch::Contains("samples_per_s"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nmeasured: {metric: samples_per_s, value: -3, unit: x, source: y}\n"),
             Catch::StartsWith("test-scenario.yaml:3:") && Catch::Contains("must be > 0"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, memory_format: nchwc}\n"), Catch::Contains("nhwc"));
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1, attention: fast}\n"), Catch::Contains("flash"));
  const std::string small = "workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, precision: bf16, batch_per_gpu: 1";
  CHECK_THAT(error_of(small + ", optimizer: adamw-turbo}\n"), Catch::Contains("adamw-fused"));
  CHECK_THAT(error_of(small + ", optimizer: adamw-fused, optimizer_impl: foreach}\n"),
             Catch::Contains("optimizer says adamw-fused"));
  // Every error names the file and a line.
  CHECK_THAT(error_of(gpt_workload + ", batch_per_gpu: 1}\nparallelism: {vp: 2}\n"), Catch::StartsWith("test-scenario.yaml:"));
}

TEST_CASE("tokens_per_gpu sets the batch from a token budget", "[scenario]") {
  const TrainingScenario s = scenario(R"(
cluster: {node: dgx-a100-80gb}
workload: {model: gpt, layers: 2, hidden: 512, heads: 8, seq_len: 1024, tokens_per_gpu: 8192, precision: bf16, optimizer: adamw-fused}
)");
  CHECK(s.workload.batch_per_gpu == 8);
  CHECK(s.workload.optimizer_impl == OptimizerImpl::fused);
  CHECK(s.parallelism.layout.dp == 8);
}

TEST_CASE("Channels-first tensors cost tensor-core convolutions their layout transposes", "[layout]") {
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  TrainingStepConfig run;
  run.micro_batch = 64, run.layout.dp = 1, run.precision = Precision::fp16;
  const ClusterConfig a100 = dgx_a100(1);
  const double nhwc = simulate_training_step(model, a100, run).result.step_time_s;
  run.channels_last = false;
  const double nchw = simulate_training_step(model, a100, run).result.step_time_s;
  CHECK(nchw > 1.1 * nhwc);
  // fp32 on a V100 has no tensor cores: no transposes either way.
  const ClusterConfig v100 = cluster("  node: dgx-1v-16gb\n");
  run.precision = Precision::fp32;
  const double v100_nchw = simulate_training_step(model, v100, run).result.step_time_s;
  run.channels_last = true;
  CHECK(simulate_training_step(model, v100, run).result.step_time_s == Approx(v100_nchw));
}

TEST_CASE("Megatron reduces gradients after backward: DDP overlaps its buckets", "[overlap]") {
  const Model model = gpt(4, 1024, 16);
  ClusterConfig c = dgx_a100(2);
  c.node.collective_sms = 0;  // overlap alone; NCCL's SM contention is its own test below
  TrainingStepConfig run;
  run.micro_batch = 16, run.layout.dp = 16;
  const TrainingStepReport overlapped = simulate_training_step(model, c, run);
  run.overlap_gradient_reduce = false;
  const TrainingStepReport after = simulate_training_step(model, c, run);
  CHECK(after.result.breakdown.communication_exposed > 1.5 * overlapped.result.breakdown.communication_exposed);
  CHECK(after.result.step_time_s > overlapped.result.step_time_s);
  CHECK(after.gradient_buckets == 1);
}

TEST_CASE("With pipelining, overlapped gradient buckets run during each stage's last microbatch backward",
          "[overlap][pipeline]") {
  const Model model = gpt(8, 2048, 16);
  ClusterConfig c = dgx_a100(4);
  c.node.collective_sms = 0;  // overlap alone
  TrainingStepConfig run;
  run.micro_batch = 1, run.microbatches = 4, run.layout.pp = 2, run.layout.dp = 16;
  run.overlap_gradient_reduce = false;
  const TrainingStepReport after = simulate_training_step(model, c, run);
  run.overlap_gradient_reduce = true;
  const TrainingStepReport during = simulate_training_step(model, c, run);
  CHECK(after.gradient_buckets == 2);  // one reduce per stage after its last backward
  CHECK(during.gradient_buckets > after.gradient_buckets);
  CHECK(during.result.breakdown.communication_exposed < after.result.breakdown.communication_exposed);
  CHECK(during.result.step_time_s < after.result.step_time_s);
}

TEST_CASE("Megatron's --overlap-param-gather hides the distributed optimizer's gather behind the next forward",
          "[overlap][zero]") {
  const Model model = gpt(8, 2048, 16);
  ClusterConfig c = dgx_a100(2);
  c.node.collective_sms = 0;  // overlap alone
  TrainingStepConfig run;
  run.micro_batch = 4, run.layout.dp = 16, run.zero = 1;
  const TrainingStepReport after_update = simulate_training_step(model, c, run);
  run.overlap_param_gather = true;
  const TrainingStepReport overlapped = simulate_training_step(model, c, run);
  // The same bytes gathered (the same collectives' summed time), bucket by bucket instead of one per stage.
  CHECK(overlapped.gradient_buckets > after_update.gradient_buckets);
  CHECK(overlapped.allreduce_time_s > 0.9 * after_update.allreduce_time_s);
  // Behind the forward only the first bucket's gather waits: the step saves most of the gather.
  const double gather = after_update.result.step_time_s - overlapped.result.step_time_s;
  CHECK(gather > 0);
  CHECK(overlapped.result.breakdown.communication_exposed < after_update.result.breakdown.communication_exposed - 0.5 * gather);
  run.zero = 0;  // nothing to gather without a sharded optimizer
  run.overlap_param_gather = false;
  const TrainingStepReport ddp = simulate_training_step(model, c, run);
  run.overlap_param_gather = true;
  CHECK(simulate_training_step(model, c, run).result.step_time_s == ddp.result.step_time_s);
}

TEST_CASE("overlap_param_gather needs a sharded optimizer (zero 1 or 2)", "[scenario][zero]") {
  const std::string yaml = "cluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}\n"
                           "workload: {model: gpt, layers: 4, hidden: 1024, heads: 16, precision: bf16, optimizer: adamw, "
                           "batch_per_gpu: 1, overlap_param_gather: true}\n";
  try {
    scenario(yaml);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("test-scenario.yaml:2:") && Catch::Contains("needs parallelism.zero 1 or 2"));
  }
  CHECK(scenario(yaml + "parallelism: {zero: 1}\n").workload.overlap_param_gather);
}

TEST_CASE("Every example scenario parses and simulates", "[examples]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  int examples = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(HPCSIM_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    // Training scenarios only: job lists, cluster files, campaigns and plans have checks of their own.
    const ConfigNode root = load_config(entry.path().string(), {});
    if (!root.has("workload") || (root.has("kind") && root.get_string("kind") != "training")) continue;
    const TrainingScenario s = parse_training_scenario(root, catalog, entry.path().stem().string());
    const TrainingStepReport r = simulate_scenario(s);
    CHECK(r.result.step_time_s > 0);
    CHECK(r.result.fits_in_memory);
    ++examples;
  }
  CHECK(examples >= 5);
}

TEST_CASE("Compute overlapping a data-parallel collective runs on the SMs NCCL leaves", "[contention]") {
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  ClusterConfig c = dgx_a100(2);
  REQUIRE(c.node.collective_sms == 24);
  TrainingStepConfig run;
  run.micro_batch = 64, run.precision = Precision::fp16;
  const TrainingStepReport with_nccl = simulate_training_step(model, c, run);
  const double contended = with_nccl.result.step_time_s;
  c.node.collective_sms = 0;
  const double free = simulate_training_step(model, c, run).result.step_time_s;
  // Only the compute that overlaps a collective slows, and only while it overlaps: the step grows, but by
  // no more than the collectives' time at the stretched rate (not by every overlapped op's whole length).
  CHECK(contended > free);
  CHECK(contended - free <= with_nccl.allreduce_time_s * (108.0 / (108 - 24) - 1) + 1e-9);
  // A slow network keeps collectives in flight for most of backward: the stretch grows with the overlap.
  ClusterConfig slow = cluster("  node: dgx-a100-80gb\n  nodes: 2\n  network: eth-10g-tcp\n");
  const TrainingStepReport slow_nccl = simulate_training_step(model, slow, run);
  slow.node.collective_sms = 0;
  const double slow_free = simulate_training_step(model, slow, run).result.step_time_s;
  CHECK(slow_nccl.result.step_time_s - slow_free > 5 * (contended - free));
  CHECK(slow_nccl.result.step_time_s - slow_free <= slow_nccl.allreduce_time_s * (108.0 / (108 - 24) - 1) + 1e-9);
  // One GPU has no collective to contend with.
  run.layout.dp = 1;
  const double one = simulate_training_step(model, c, run).result.step_time_s;
  c.node.collective_sms = 24;
  CHECK(simulate_training_step(model, c, run).result.step_time_s == Approx(one));
}

TEST_CASE("Context parallelism splits the sequence: its ranks reduce gradients with the data-parallel ones",
          "[context]") {
  ModelParams p;
  p.layers = 4, p.hidden = 2048, p.heads = 16, p.seq_len = 8192, p.vocab = 32000;
  const Model model = build_model("gpt", p, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig c = dgx_a100(1);
  TrainingStepConfig run;
  run.micro_batch = 1, run.layout.dp = 8, run.zero = 1;
  const TrainingStepReport plain = simulate_training_step(model, c, run);
  run.layout.dp = 4, run.layout.cp = 2;
  const TrainingStepReport split = simulate_training_step(model, c, run);
  CHECK(split.memory.activations == Approx(plain.memory.activations / 2).epsilon(0.05));
  CHECK(split.memory.optimizer_state == Approx(plain.memory.optimizer_state));  // sharded over dp x cp = 8
  CHECK(split.result.step_time_s < 0.7 * plain.result.step_time_s);
  CHECK(split.result.samples_per_s == Approx(plain.result.samples_per_s).epsilon(0.3));
}

TEST_CASE("A hybrid-parallel step is bit-identical run to run", "[hybrid]") {
  const TrainingScenario s = scenario(R"(
cluster: {node: dgx-a100-80gb, nodes: 4, network: ib-hdr}
workload: {model: gpt, layers: 8, hidden: 2048, heads: 16, seq_len: 1024, micro_batch: 2, global_batch: 64,
           precision: bf16, optimizer: adamw, framework: megatron, activation_checkpointing: true}
parallelism: {tp: 2, pp: 2, vp: 2, cp: 2, zero: 1}
)");
  const TrainingStepReport a = simulate_scenario(s, true), b = simulate_scenario(s, true);
  CHECK(a.result.step_time_s == b.result.step_time_s);
  CHECK(a.result.events == b.result.events);
  CHECK(a.memory.total() == b.memory.total());
  REQUIRE(a.timeline.size() == b.timeline.size());
  for (std::size_t i = 0; i < a.timeline.size(); ++i) {
    CHECK(a.timeline[i].name == b.timeline[i].name);
    CHECK(a.timeline[i].end_s == b.timeline[i].end_s);
  }
}

TEST_CASE("In-place ReLU outputs are held once: ResNet-50 batch 256 AMP fits a 16 GB V100, as DLE runs it",
          "[memory]") {
  // DeepLearningExamples ConvNets configs.yml: resnet50 DGX1V AMP batch_size 256 (FP32: 112), 16 GB V100s.
  const Model model = build_model("resnet50", {}, HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig v100 = cluster("  node: dgx-1v-16gb\n  gpus_per_node: 1\n");
  TrainingStepConfig run;
  run.micro_batch = 256, run.precision = Precision::fp16, run.optimizer = OptimizerKind::momentum;
  CHECK(simulate_training_step(model, v100, run).result.fits_in_memory);
  run.precision = Precision::fp32;
  CHECK_FALSE(simulate_training_step(model, v100, run).result.fits_in_memory);  // hence DLE's 112 in FP32
  run.micro_batch = 112;
  CHECK(simulate_training_step(model, v100, run).result.fits_in_memory);
}

TEST_CASE("cluster.filesystem feeds the input pipeline, and with cluster.storage or unknown it is an error at its key",
          "[scenario]") {
  const std::string workload =
      "workload: {model: resnet50, batch_per_gpu: 256, precision: fp16, optimizer: momentum, dataset: imagenet-1k, "
      "loader_workers: 8}\n";
  const TrainingScenario s =
      scenario("cluster: {node: dgx-a100-80gb, nodes: 8, network: ib-hdr, filesystem: lustre-hdd-edr}\n" + workload);
  REQUIRE(s.filesystem_spec);
  CHECK_FALSE(s.storage_spec);
  const TrainingStepReport r = simulate_scenario(s);
  REQUIRE(r.input);
  // 512 loader workers, each opening and reading one 110 KB file at a time behind a disk's 4.16 ms access,
  // ask fewer files per second than the 1,800 disks serve: the readers' own pace binds.
  CHECK(r.input->storage_limit == "client requests");
  // The step waits for what the loader cannot hide behind it.
  CHECK(r.result.breakdown.io_stall == Approx(std::max(0.0, r.input->seconds_per_batch - r.result.breakdown.compute -
                                                                r.result.breakdown.communication_exposed -
                                                                r.result.breakdown.optimizer - r.result.breakdown.other))
                                          .margin(1e-6));
  const auto error_of = [&](const std::string& cluster) {
    try {
      scenario(cluster + workload);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("cluster: {node: dgx-a100-80gb, storage: lustre-hdd, filesystem: lustre-hdd-edr}\n"),
             Catch::Contains("test-scenario.yaml:1:") && Catch::Contains("give one"));
  CHECK_THAT(error_of("cluster: {node: dgx-a100-80gb, filesystem: lustre-hdd-ed}\n"),
             Catch::Contains("test-scenario.yaml:1:") && Catch::Contains("lustre-hdd-edr"));
  CHECK_THAT(error_of("cluster: {node: dgx-a100-80gb}\n"), Catch::Contains("cluster.filesystem"));
}

TEST_CASE("A gated MLP splits over a tp that does not divide its width", "[scenario]") {
  // ffn 53,248 (Llama 3.1 405B's) over tp 3: each GPU keeps 17,750 gate and as many up columns; the shard of
  // the fused [gate, up] output was ceil(106,496 / 3) = 35,499, odd, and swiglu refused it as an internal error.
  const TrainingScenario s = scenario(
      "cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 3}\n"
      "workload: {model: llama3-8b, layers: 2, ffn: 53248, seq_len: 256, batch_per_gpu: 1, precision: bf16, optimizer: adamw}\n"
      "parallelism: {tp: 3}\n");
  const TrainingStepReport r = simulate_scenario(s);
  CHECK(r.result.step_time_s > 0);
}

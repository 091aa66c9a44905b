// A training step's plan is built without a Platform: the stage cut, the data-parallel groups, the graph's
// ops and collectives, memory and FLOPs, all before anything runs; running it gives the report they predict.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/training/model_training_step.h"
#include "workloads/training/training_memory.h"
#include "workloads/training/training_step_plan.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

Model zoo(const std::string& name) { return build_model(name, {}, HPCSIM_SOURCE_CONFIG_DIR); }

ClusterConfig dgx_a100(int nodes) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string yaml = "cluster:\n  node: dgx-a100-80gb\n  nodes: " + std::to_string(nodes) + "\n  network: ib-hdr\n";
  return parse_cluster(parse_config_text(yaml, "plan-cluster.yaml").at("cluster"), catalog);
}

}  // namespace

TEST_CASE("a pipelined step is planned without a platform", "[training][plan]") {
  const Model model = zoo("bert-base");
  const ClusterConfig cluster = dgx_a100(1);
  TrainingStepConfig config;
  config.micro_batch = 8;
  config.microbatches = 4;
  config.layout.pp = 2;  // dp 0: the 4 data-parallel ranks the 8 GPUs leave
  config.overlap_gradient_reduce = false;  // one reduce per stage (buckets with overlap: parallel_step_test)
  const TrainingStepPlan plan = plan_training_step(model, cluster, config);
  const int m = config.microbatches;

  CHECK(plan.layout.dp == 4);
  REQUIRE(plan.stages.size() == 2);
  CHECK(plan.stages[0].first == 0);
  CHECK(plan.stages[0].last == plan.stages[1].first);
  CHECK(plan.stages[1].last > plan.stages[1].first);
  // Stage s reduces over the 4 GPUs holding its layers (tp 1: one group per stage).
  CHECK(plan.dp_gpus == std::vector<std::vector<std::vector<int>>>{{{0, 1, 2, 3}}, {{4, 5, 6, 7}}});

  // Per stage a forward and a backward pass per microbatch; activations forward and gradients back across
  // the one cut per microbatch; an optimizer step and (after its last backward) one gradient all-reduce per stage.
  for (int s = 0; s < 2; ++s) CHECK(plan.pass_ops[s].size() == static_cast<std::size_t>(2 * m));
  REQUIRE(plan.collectives.size() == 2);
  CHECK(plan.graph.size() == static_cast<std::size_t>(2 * 2 * m + 2 * m + 2 + 2));
  for (int s = 0; s < 2; ++s) {
    const TrainingStepPlan::Collective& c = plan.collectives[s];
    CHECK(c.op == CollectiveOp::allreduce);
    CHECK(c.stage == s);
    CHECK(c.bytes == plan.stages[s].params * gradient_bytes_per_param(config.precision));
  }
  CHECK(plan.lane(plan.p2p_stream(0, true)) == "p2p 0->1 activations");
  CHECK(plan.lane(plan.p2p_stream(0, false)) == "p2p 1->0 gradients");
  CHECK(plan.lane(plan.dp_stream(1)) == "stage 1 data-parallel");

  CHECK(plan.samples_per_step == 8.0 * m * 4);
  CHECK(plan.model_flops > 0);
  CHECK(plan.hardware_flops == plan.model_flops);  // nothing recomputed
  // The memory-only estimate (no collectives timed, no graph) is the plan's.
  const TrainingMemory estimate = training_step_memory(model, cluster, config);
  CHECK(plan.memory.total() == estimate.total());
  CHECK(plan.memory.activations == estimate.activations);

  // Run on a platform, the step reports what its plan fixed.
  const TrainingStepReport run = simulate_training_step(model, cluster, config);
  CHECK(run.gradient_buckets == static_cast<int>(plan.collectives.size()));
  CHECK(run.memory.total() == plan.memory.total());
  CHECK(run.model_flops == plan.model_flops);
  CHECK(run.result.samples_per_s == Approx(plan.samples_per_step / run.result.step_time_s));
}

TEST_CASE("DDP's gradient buckets in the plan carry every gradient of the stage once", "[training][plan]") {
  const Model model = zoo("resnet50");
  TrainingStepConfig config;
  config.micro_batch = 64;
  const TrainingStepPlan plan = plan_training_step(model, dgx_a100(2), config);
  CHECK(plan.layout.dp == 16);
  REQUIRE(plan.collectives.size() >= 2);  // 51 MB of bf16 gradients in 25 MB buckets
  double bytes = 0;
  for (const TrainingStepPlan::Collective& c : plan.collectives) {
    CHECK(c.stage == 0);
    CHECK(c.bytes <= 2 * config.bucket_bytes);
    bytes += c.bytes;
  }
  CHECK(bytes == Approx(plan.stages[0].params * gradient_bytes_per_param(config.precision)).epsilon(1e-12));
}

TEST_CASE("planning rejects what the step cannot run, before any platform", "[training][plan]") {
  TrainingStepConfig config;
  config.layout.tp = 2;
  CHECK_THROWS_WITH(plan_training_step(zoo("resnet50"), dgx_a100(1), config),
                    Catch::Contains("no tensor-parallel layers"));
  config.layout.tp = 1;
  config.layout.pp = 64;
  config.layout.dp = 1;
  CHECK_THROWS_WITH(plan_training_step(zoo("keras-cnn-mnist"), dgx_a100(8), config),
                    Catch::Contains("pipeline stages but the model has"));
}

// The GPT of a two-stage pipeline across DGX nodes: the loss reads the output layer's logits (batch x
// sequence x vocabulary) on the last stage, as in Megatron-LM and DeepSpeed, so the stages pass the hidden
// states on (batch x sequence x hidden) whatever the GPU's speed moves the time-balanced cut. A cut in
// front of the loss once sent 412 MB of logits per microbatch over the NIC on H100 (faster GEMMs moved the
// balance point past the output layer): the H100 step came out 1.7x slower than A100's.
TEST_CASE("a pipeline cut keeps the loss with the logits it reads", "[training][plan]") {
  ModelParams sizes;
  sizes.layers = 4, sizes.hidden = 1024, sizes.heads = 16, sizes.seq_len = 1024, sizes.vocab = 50257;
  const Model model = build_model("gpt", sizes, HPCSIM_SOURCE_CONFIG_DIR);
  TrainingStepConfig config;
  config.micro_batch = 4;
  config.microbatches = 8;
  config.layout.pp = 2;
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  auto cluster = [&](const std::string& node) {
    const std::string yaml = "cluster:\n  node: " + node + "\n  nodes: 4\n  network: ib-hdr\n";
    return parse_cluster(parse_config_text(yaml, "pp-cluster.yaml").at("cluster"), catalog);
  };
  const double hidden_bytes = 4.0 * 1024 * 1024 * 2;  // micro batch x sequence x hidden, bf16
  std::vector<double> step;
  for (const std::string node : {"dgx-a100-80gb", "dgx-h100"}) {
    INFO(node);
    const ClusterConfig c = cluster(node);
    const TrainingStepPlan plan = plan_training_step(model, c, config);
    REQUIRE(plan.stages.size() == 2);
    CHECK(plan.stages[0].send_bytes == hidden_bytes);
    // Stage 0 holds GPUs 0-15 (nodes 0-1), stage 1 GPUs 16-31: each transfer leaves its GPU's own NIC, a
    // GPUDirect RDMA path whose narrowest link is the HDR port (the H100's 400 Gb/s NIC runs at HDR's rate).
    const double path = c.network->payload_bandwidth();
    int sends = 0;
    for (OpId op = 0; op < plan.graph.size(); ++op) {
      if (plan.graph.name(op).rfind("send_", 0) != 0) continue;
      ++sends;
      const double s = plan.seconds[plan.graph.payload(op)];
      CHECK(s >= hidden_bytes / path);
      CHECK(s <= hidden_bytes / path + 5e-6);  // software and switch latency
    }
    CHECK(sends == 2 * config.microbatches);
    step.push_back(simulate_training_step(model, c, config).result.step_time_s);
  }
  CHECK(step[1] < step[0]);  // H100 is not slower than A100 on the same layout
}

namespace {

ClusterConfig cluster_of(const std::string& node, int nodes) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string yaml = "cluster:\n  node: " + node + "\n  nodes: " + std::to_string(nodes) + "\n  network: ib-edr\n";
  return parse_cluster(parse_config_text(yaml, "plan-cluster.yaml").at("cluster"), catalog);
}

// Seconds of the forward activation transfer after stage 0 of a 2-stage pipeline, one stage per node.
double first_p2p_s(const std::string& node, int tp) {
  TrainingStepConfig config;
  config.micro_batch = 8;
  config.microbatches = 2;
  config.layout.pp = 2;
  config.layout.tp = tp;
  config.layout.dp = 8 / tp;
  config.precision = Precision::fp16;  // the V100 has no bf16
  config.sequence_parallel = tp > 1;  // the pieces are not gathered again: only the transfer is timed
  const TrainingStepPlan plan = plan_training_step(zoo("bert-large"), cluster_of(node, 2), config);
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    if (plan.graph.stream(id) == plan.p2p_stream(0, true)) return plan.seconds.at(plan.graph.payload(id));
  }
  FAIL("no forward transfer after stage 0");
  return 0;
}

}  // namespace

TEST_CASE("a pipeline's transfer between nodes uses the NICs beside its sending GPUs", "[training][plan]") {
  // DGX A100: a NIC per GPU, so tp 2's two GPUs send their halves over two NICs at once (half the time, plus
  // the one latency). DGX-1: four NICs for eight GPUs, GPUs 0 and 1 share the first: tp 2 gains nothing.
  const double a100_tp1 = first_p2p_s("dgx-a100-80gb", 1), a100_tp2 = first_p2p_s("dgx-a100-80gb", 2);
  const double dgx1_tp1 = first_p2p_s("dgx-1v-32gb", 1), dgx1_tp2 = first_p2p_s("dgx-1v-32gb", 2);
  CHECK(a100_tp2 < 0.6 * a100_tp1);
  CHECK(dgx1_tp2 == Approx(dgx1_tp1).epsilon(1e-9));
}

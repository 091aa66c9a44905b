// The data-parallel training step over zoo models: one GPU costs exactly its kernels, gradient buckets
// overlap backward, the fabric decides scaling, memory reports its components, runs are deterministic.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/ops/op_kernel.h"
#include "workloads/training/model_training_step.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

Model zoo(const std::string& name) { return build_model(name, {}, HPCSIM_SOURCE_CONFIG_DIR); }

ClusterConfig cluster(const std::string& yaml) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_cluster(parse_config_text("cluster:\n" + yaml, "test-cluster.yaml").at("cluster"), catalog);
}

ClusterConfig dgx_a100(int nodes, const std::string& network) {
  return cluster("  node: dgx-a100-80gb\n  nodes: " + std::to_string(nodes) + "\n  network: " + network + "\n");
}

// Every kernel the step should launch on one GPU, timed one layer phase at a time as the kernel model
// sees them: forward, backward-data (not for layers fed only by network inputs), backward-weight, update.
double sum_of_kernel_times(const Model& model, const GpuSpec& gpu, const TrainingStepConfig& run) {
  const LayerRun layer_run{run.micro_batch, run.precision};
  double total = 0;
  std::int64_t tensors = 0;
  for (const Network& net : model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (!n.layer) continue;
      const LayerKernels k = n.layer->kernels(gpu, n.input_shapes, layer_run);
      bool fed_by_layer = false;
      for (int i : n.inputs) fed_by_layer |= static_cast<bool>(net.nodes()[i].layer);
      total += estimate_op(gpu, k.forward).time_s + estimate_op(gpu, k.backward_weight).time_s;
      if (fed_by_layer) total += estimate_op(gpu, k.backward_data).time_s;
      if (n.layer->params(n.input_shapes) > 0) tensors += 2;
    }
  }
  const double params = static_cast<double>(model.params());
  std::vector<Kernel> update =
      optimizer_step({run.optimizer, run.optimizer_impl, params, tensors, Precision::fp32});
  update.push_back(elementwise_kernel("master", params, 1, {{4, false}, {2, true}}));  // bf16 run
  return total + estimate_op(gpu, update).time_s;
}

}  // namespace

TEST_CASE("training step on one GPU is the sum of its kernel times", "[training]") {
  const ClusterConfig one = cluster("  node: dgx-a100-80gb\n  gpus_per_node: 1\n");
  for (const std::string name : {"resnet50", "keras-cnn-mnist", "bert-base"}) {
    INFO(name);
    const Model model = zoo(name);
    TrainingStepConfig run;
    run.micro_batch = name == "bert-base" ? 8 : 32;
    const TrainingStepReport r = simulate_training_step(model, one, run);
    // Each kernel's end is rounded to the engine's picosecond: a margin of 1 ps per launch.
    CHECK(r.result.step_time_s == Approx(sum_of_kernel_times(model, one.node.gpu, run)).epsilon(1e-9).margin(1e-9));
    CHECK(r.gradient_buckets == 0);
    CHECK(r.allreduce_time_s == 0);
    CHECK(r.result.breakdown.communication_exposed == 0);
    CHECK(r.result.breakdown.compute + r.result.breakdown.optimizer == Approx(r.result.step_time_s).epsilon(1e-9));
    CHECK(r.result.gpus == 1);
    CHECK(r.result.fits_in_memory);
    // A 28x28 CNN at batch 32 is launch-bound (under 1% MFU); only bound it by the peak.
    CHECK(r.result.mfu > 0);
    CHECK(r.result.mfu < 1.0);
    WARN(name << " batch " << run.micro_batch << " bf16 on one A100: step " << r.result.step_time_s
              << " s, " << r.result.samples_per_s << " samples/s, MFU " << r.result.mfu);
    CHECK(r.result.tokens_per_s.has_value() == (name == "bert-base"));
    if (r.result.tokens_per_s) {
      const Shape& ids = model.networks.front().nodes().front().output;  // [seq_len] token ids
      CHECK(*r.result.tokens_per_s == Approx(r.result.samples_per_s * static_cast<double>(ids.at(0))));
    }
  }
}

TEST_CASE("gradient all-reduces overlap backward", "[training]") {
  const Model model = zoo("resnet50");
  TrainingStepConfig run;
  run.micro_batch = 128;
  const TrainingStepReport r = simulate_training_step(model, dgx_a100(2, "ib-hdr"), run);
  // ResNet-50's 25.6 M bf16 gradients are 51 MB: at least two 25 MB buckets.
  CHECK(r.gradient_buckets >= 2);
  CHECK(r.allreduce_time_s > 0);
  CHECK(r.result.breakdown.communication_exposed < r.allreduce_time_s);
  CHECK(r.result.gpus == 16);
  CHECK(r.result.samples_per_s == Approx(128.0 * 16 / r.result.step_time_s));

  run.layout.dp = 4;  // half of one node: the first four GPUs
  const TrainingStepReport half = simulate_training_step(model, dgx_a100(1, "ib-hdr"), run);
  CHECK(half.result.gpus == 4);
  CHECK(half.gradient_buckets == r.gradient_buckets);
  CHECK(half.allreduce_time_s > 0);
}

TEST_CASE("ResNet-50 scaling falls faster on 100G TCP Ethernet than on HDR InfiniBand", "[training]") {
  const Model model = zoo("resnet50");
  TrainingStepConfig run;
  run.micro_batch = 128;
  const double single = simulate_training_step(
      model, cluster("  node: dgx-a100-80gb\n  gpus_per_node: 1\n"), run).result.samples_per_s;
  auto efficiency = [&](int nodes, const std::string& network) {
    const TrainingStepReport r = simulate_training_step(model, dgx_a100(nodes, network), run);
    return r.result.samples_per_s / (single * r.result.gpus);
  };
  std::vector<double> eth, ib;
  for (int nodes : {1, 2, 4, 8}) {
    eth.push_back(efficiency(nodes, "eth-100g-tcp"));
    ib.push_back(efficiency(nodes, "ib-hdr"));
    WARN(nodes << " DGX A100: efficiency eth-100g-tcp " << eth.back() << ", ib-hdr " << ib.back());
  }
  CHECK(eth[0] == Approx(ib[0]));  // one node: NVLink only, the network unused
  for (std::size_t i = 1; i < eth.size(); ++i) {
    CHECK(eth[i] <= eth[i - 1] + 1e-12);
    CHECK(eth[i] < ib[i]);
    CHECK(eth[0] - eth[i] > ib[0] - ib[i]);
  }
}

TEST_CASE("a model that does not fit reports its four memory components", "[training]") {
  const Model model = zoo("gpt3-175b");
  TrainingStepConfig run;
  run.micro_batch = 1;
  const TrainingStepReport r = simulate_training_step(model, cluster("  node: dgx-a100-80gb\n  gpus_per_node: 1\n"), run);
  const double params = static_cast<double>(model.params());
  CHECK_FALSE(r.result.fits_in_memory);
  CHECK(r.memory.weights == params * 2);            // bf16
  CHECK(r.memory.gradients == params * 2);
  CHECK(r.memory.optimizer_state == params * 12);   // fp32 master + two Adam moments
  CHECK(r.memory.activations > 0);
  CHECK(r.result.memory_per_gpu_bytes == Approx(r.memory.total()));
  CHECK(r.result.memory_per_gpu_bytes > r.memory.weights + r.memory.gradients + r.memory.optimizer_state);

  const TrainingStepReport small = simulate_training_step(zoo("resnet50"), dgx_a100(1, "ib-hdr"), run);
  CHECK(small.result.fits_in_memory);
}

TEST_CASE("training step is deterministic", "[training]") {
  const Model model = zoo("resnet50");
  TrainingStepConfig run;
  run.micro_batch = 64;
  const ClusterConfig c = dgx_a100(2, "eth-100g-tcp");
  const TrainingStepReport a = simulate_training_step(model, c, run);
  const TrainingStepReport b = simulate_training_step(model, c, run);
  CHECK(a.result.step_time_s == b.result.step_time_s);
  CHECK(a.allreduce_time_s == b.allreduce_time_s);
  CHECK(a.result.breakdown.communication_exposed == b.result.breakdown.communication_exposed);
  CHECK(a.result.events == b.result.events);
}

TEST_CASE("training step rejects a bad micro batch or dp", "[training]") {
  const Model model = zoo("keras-cnn-mnist");
  TrainingStepConfig run;
  run.micro_batch = 0;
  CHECK_THROWS_WITH(simulate_training_step(model, dgx_a100(1, "ib-hdr"), run), Catch::Contains("micro batch"));
  run.micro_batch = 1;
  run.layout.dp = 9;
  CHECK_THROWS_WITH(simulate_training_step(model, dgx_a100(1, "ib-hdr"), run), Catch::Contains("= 9 outside 1..8"));
}

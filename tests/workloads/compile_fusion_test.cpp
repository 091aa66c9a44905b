// Compile-mode fusion: elementwise layers fold into neighbouring kernels; launches and intermediate HBM
// traffic go, FLOPs stay, and tensors something still needs (saved for backward, read twice) stay written.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/op_kernel.h"
#include "workloads/layers/conv2d.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/normalization.h"
#include "workloads/training/compile_fusion.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

const GpuSpec& a100() {
  static const GpuSpec gpu = parse_gpu_spec(
      SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU"), "a100-sxm4-80gb");
  return gpu;
}

const LayerRun kRun{8, Precision::bf16};

std::vector<LayerKernels> kernels_of(const Model& model) {
  std::vector<LayerKernels> out;
  for (const Network& net : model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (n.layer) out.push_back(n.layer->kernels(a100(), n.input_shapes, kRun));
    }
  }
  return out;
}

struct Totals {
  std::int64_t launches = 0;
  double bytes = 0;  // requested global-memory bytes
  double flops = 0;
  double time_s = 0;
};

Totals totals(const std::vector<Kernel>& ks) {
  Totals t;
  for (const Kernel& k : ks) {
    const double n = static_cast<double>(k.count);
    t.launches += k.count;
    t.flops += k.work.flops * n;
    for (int a = 0; a < k.work.global_count; ++a) t.bytes += k.work.global[static_cast<std::size_t>(a)].bytes * n;
  }
  t.time_s = ks.empty() ? 0 : estimate_op(a100(), ks).time_s;
  return t;
}

Totals totals(const std::vector<LayerKernels>& per_layer, bool forward = true, bool backward = true) {
  std::vector<Kernel> all;
  for (const LayerKernels& k : per_layer) {
    if (forward) all.insert(all.end(), k.forward.begin(), k.forward.end());
    if (backward) {
      all.insert(all.end(), k.backward_data.begin(), k.backward_data.end());
      all.insert(all.end(), k.backward_weight.begin(), k.backward_weight.end());
    }
  }
  return totals(all);
}

Model mlp(std::shared_ptr<const Layer> middle) {
  Network net("mlp");
  net.add_input("x", {512, 1024});
  net.add("fc1", std::make_shared<Linear>(4096));
  net.add("middle", std::move(middle));
  net.add("fc2", std::make_shared<Linear>(1024));
  return {"mlp", {net}};
}

constexpr double kTensor = 8.0 * 512 * 4096 * 2;  // bytes of the [8, 512, 4096] bf16 intermediate

}  // namespace

TEST_CASE("fusion_layers lists layers in node order with their inputs as list indices", "[fusion]") {
  const std::vector<FusionLayer> l = fusion_layers(mlp(std::make_shared<Activation>(ActivationKind::gelu)));
  REQUIRE(l.size() == 3);
  CHECK(l[0].type == "dense");
  CHECK(l[0].inputs == std::vector<int>{-1});
  CHECK(l[1].type == "gelu");
  CHECK(l[1].inputs == std::vector<int>{0});
  CHECK(l[2].inputs == std::vector<int>{1});
}

TEST_CASE("fusing a GPT model removes launches and bytes but no FLOPs", "[fusion]") {
  ModelParams p;
  p.layers = 2, p.hidden = 1024, p.heads = 16, p.vocab = 8192, p.seq_len = 512;
  const Model gpt = build_model("gpt", p, HPCSIM_SOURCE_CONFIG_DIR);
  const std::vector<FusionLayer> layers = fusion_layers(gpt);
  const std::vector<LayerKernels> eager = kernels_of(gpt);
  const Totals before = totals(eager);

  std::vector<LayerKernels> none = eager, chains = eager, epilogue = eager;
  const FusionStats s_none = fuse_elementwise_chains(none, layers, FusionScope::none);
  const FusionStats s_chains = fuse_elementwise_chains(chains, layers, FusionScope::chains);
  const FusionStats s_epi = fuse_elementwise_chains(epilogue, layers, FusionScope::epilogue);
  const Totals t_none = totals(none), t_chains = totals(chains), t_epi = totals(epilogue);

  CHECK(s_none.launches_removed == 0);
  CHECK(t_none.launches == before.launches);
  CHECK(t_none.bytes == Approx(before.bytes));

  // Chains: each residual add (and the position add) runs inside the layer norm that reads it (pre-norm);
  // GEMMs are untouched.
  CHECK(s_chains.forward_fused == 2 * 2 + 1);
  CHECK(s_chains.backward_fused == 0);
  CHECK(t_chains.launches == before.launches - 5);
  // Epilogue: the adds go into the attention-output and fc2 GEMMs, GeLU into fc1, and GeLU's backward into
  // fc2's input-gradient GEMM; the position-embedding add into the embedding gather.
  CHECK(s_epi.forward_fused == 2 * 3 + 1);
  CHECK(s_epi.backward_fused == 2);
  CHECK(t_epi.launches == before.launches - s_epi.launches_removed);
  CHECK(t_epi.launches < t_chains.launches);

  for (const Totals* t : {&t_chains, &t_epi}) {
    CHECK(t->bytes < before.bytes);
    CHECK(t->flops == Approx(before.flops).epsilon(1e-12));
    CHECK(t->time_s < before.time_s);
  }
  CHECK(t_epi.bytes < t_chains.bytes);
  CHECK(before.bytes - t_epi.bytes == Approx(s_epi.bytes_removed).epsilon(1e-9));
}

TEST_CASE("an activation saved for backward keeps its input written: dropout does not", "[fusion]") {
  SECTION("gelu: only the read of the pre-activation goes") {
    const Model m = mlp(std::make_shared<Activation>(ActivationKind::gelu));
    std::vector<LayerKernels> k = kernels_of(m);
    const Totals fwd_before = totals(k, true, false);
    fuse_elementwise_chains(k, fusion_layers(m), FusionScope::epilogue);
    CHECK(k[1].forward.empty());
    const Totals fwd_after = totals(k, true, false);
    CHECK(fwd_after.launches == fwd_before.launches - 1);
    CHECK(fwd_before.bytes - fwd_after.bytes == Approx(kTensor));
    CHECK(fwd_after.flops == Approx(fwd_before.flops));
  }
  SECTION("dropout: the intermediate is neither written nor read") {
    const Model m = mlp(std::make_shared<Dropout>(0.1));
    std::vector<LayerKernels> k = kernels_of(m);
    const Totals fwd_before = totals(k, true, false);
    fuse_elementwise_chains(k, fusion_layers(m), FusionScope::epilogue);
    CHECK(fwd_before.bytes - totals(k, true, false).bytes == Approx(2 * kTensor));
  }
  SECTION("relu after a batch norm fuses into its normalize pass under chains") {
    Network net("cbr");
    net.add_input("x", {64, 56, 56});
    Conv2dConfig c;
    c.filters = 64, c.kernel_h = c.kernel_w = 3, c.pad_h = c.pad_w = 1, c.bias = false;
    net.add("conv", std::make_shared<Conv2d>(c));
    net.add("bn", std::make_shared<BatchNorm>());
    net.add("relu", std::make_shared<Activation>(ActivationKind::relu));
    net.add("conv2", std::make_shared<Conv2d>(c));
    const Model m{"cbr", {net}};
    std::vector<LayerKernels> k = kernels_of(m);
    const std::vector<LayerKernels> eager = k;
    const FusionStats s = fuse_elementwise_chains(k, fusion_layers(m), FusionScope::chains);
    CHECK(s.forward_fused == 1);
    CHECK(k[2].forward.empty());
    CHECK(k[0].forward[0].work.global_count == eager[0].forward[0].work.global_count);  // the conv is untouched
    const double tensor = 8.0 * 64 * 56 * 56 * 2;
    CHECK(totals(eager, true, false).bytes - totals(k, true, false).bytes == Approx(2 * tensor));
    // relu's backward would go into conv2's dgrad epilogue: not a chain host.
    CHECK(s.backward_fused == 0);
    CHECK(fuse_elementwise_chains(k, fusion_layers(m), FusionScope::epilogue).backward_fused == 1);
  }
}

TEST_CASE("a fused activation backward removes the output-gradient round trip", "[fusion]") {
  const Model m = mlp(std::make_shared<Activation>(ActivationKind::gelu));
  std::vector<LayerKernels> k = kernels_of(m);
  const Totals bwd_before = totals(k, false, true);
  const FusionStats s = fuse_elementwise_chains(k, fusion_layers(m), FusionScope::epilogue);
  CHECK(s.backward_fused == 1);
  CHECK(k[1].backward_data.empty());
  const Totals bwd_after = totals(k, false, true);
  CHECK(bwd_after.launches == bwd_before.launches - 1);
  CHECK(bwd_before.bytes - bwd_after.bytes == Approx(2 * kTensor));
  CHECK(bwd_after.flops == Approx(bwd_before.flops));
}

TEST_CASE("fusion rejects mismatched inputs", "[fusion]") {
  const Model m = mlp(std::make_shared<Activation>(ActivationKind::relu));
  std::vector<LayerKernels> k = kernels_of(m);
  k.pop_back();
  CHECK_THROWS_AS(fuse_elementwise_chains(k, fusion_layers(m), FusionScope::chains), std::invalid_argument);
}

// The work NVIDIA DLE's GNMT and BERT pretraining steps launch beyond their big layers: the loss's fp32
// log-softmax under 16-bit training, label smoothing, GNMT's dropout and residual additions, and BERT's
// masked-LM head on the masked positions only. Each check counts by hand in its comment.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

GpuSpec a100() {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU"),
                        "a100-sxm4-80gb");
}

Model zoo(const std::string& name, const ModelParams& p = {}) { return build_model(name, p, HPCSIM_SOURCE_CONFIG_DIR); }

double seconds(const GpuSpec& gpu, const std::vector<Kernel>& ks) { return estimate_op(gpu, ks).time_s; }

bool has_kernel(const std::vector<Kernel>& ks, const std::string& name) {
  for (const Kernel& k : ks) {
    if (k.name == name) return true;
  }
  return false;
}

const LayerNode& node(const Network& net, const std::string& name) {
  for (const LayerNode& n : net.nodes()) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no layer " + name);
}

int count_type(const Network& net, const std::string& type) {
  int n = 0;
  for (const LayerNode& l : net.nodes()) n += l.layer && l.layer->type() == type;
  return n;
}

}  // namespace

TEST_CASE("cross entropy: 16-bit logits go through an fp32 log-softmax (autocast's fp32 list)") {
  const GpuSpec gpu = a100();
  const CrossEntropyLoss loss;
  const Shapes logits{{50, 32000}};
  // fp32 probabilities are kept whatever the logits' width: 128 x 50 x 32,000 values x 4 bytes.
  CHECK(loss.activation_bytes(logits, {128, Precision::fp16}) == 128.0 * 50 * 32000 * 4);
  CHECK(loss.activation_bytes(logits, {128, Precision::fp32}) == 128.0 * 50 * 32000 * 4);
  const LayerKernels half = loss.kernels(gpu, logits, {128, Precision::fp16});
  const LayerKernels full = loss.kernels(gpu, logits, {128, Precision::fp32});
  CHECK(has_kernel(half.forward, "logits_to_fp32"));
  CHECK(has_kernel(half.backward_data, "logits_grad_to_16bit"));
  CHECK_FALSE(has_kernel(full.forward, "logits_to_fp32"));
  // The cast costs a pass more than the fp32 loss itself, never less.
  CHECK(seconds(gpu, half.forward) > seconds(gpu, full.forward));
}

TEST_CASE("cross entropy: label smoothing adds the mean over the classes and a dense gradient") {
  const GpuSpec gpu = a100();
  const CrossEntropyLoss plain, smoothed(0.1);
  const Shapes logits{{50, 32000}};
  const LayerRun run{128, Precision::fp16};
  CHECK(smoothed.forward_flops(logits, run) == 14.0 * 128 * 50 * 32000);
  const LayerKernels p = plain.kernels(gpu, logits, run), s = smoothed.kernels(gpu, logits, run);
  CHECK(s.forward.size() == p.forward.size() + 1);            // the row mean
  CHECK(s.backward_data.size() == p.backward_data.size() + 2);  // zeros + scatter, then the add
  // Backward moves at least 3 more fp32 passes over 205 M values (2.5 GB): well over 1 ms on an A100.
  CHECK(seconds(gpu, s.backward_data) - seconds(gpu, p.backward_data) > 1e-3);
  CHECK_THROWS_AS(CrossEntropyLoss(1.0), std::invalid_argument);
  CHECK_THROWS_AS(CrossEntropyLoss(-0.1), std::invalid_argument);
}

TEST_CASE("gather positions: the rows a masked-LM head reads, scattered back into zeros") {
  const GpuSpec gpu = a100();
  const GatherPositions gather(20);
  CHECK(gather.output_shape({{128, 1024}}) == Shape{20, 1024});
  CHECK_THROWS_AS(gather.output_shape({{16, 1024}}), ShapeError);
  CHECK_THROWS_AS(GatherPositions(0), std::invalid_argument);
  const LayerKernels k = gather.kernels(gpu, {{128, 1024}}, {256, Precision::fp16});
  REQUIRE(k.forward.size() == 1);
  REQUIRE(k.backward_data.size() == 2);
  // Backward zero-fills the whole [128, 1024] fp16 gradient of every sample before scattering 20 rows;
  // forward reads 20 rows.
  CHECK(k.backward_data[0].work.global[0].bytes == 256.0 * 128 * 1024 * 2);
  CHECK(k.forward[0].work.global[0].bytes == 256.0 * 20 * 1024 * 2);
}

TEST_CASE("zoo gnmt: DLE's dropout 0.2 on every LSTM input, residuals from the third layer, smoothed loss") {
  const Model m = zoo("gnmt");
  const Network& net = m.networks[0];
  // Encoder: embedding, layer 1 (2,048 wide), layers 2 and 3; decoder: layers 1 to 3.
  CHECK(count_type(net, "dropout") == 7);
  CHECK(count_type(net, "add") == 4);  // encoder layers 2, 3 and decoder layers 2, 3
  CHECK(node(net, "encoder_dropout_1").input_shapes[0] == Shape{50, 2048});
  // Dropout and residual additions hold no parameters: the count is still the hand-derived one of
  // zoo_params_test (a stack of 3 is one encoder and one decoder LSTM smaller).
  CHECK(m.params() - zoo("gnmt", {.layers = 3}).params() == 8392704 + 12587008);
  CHECK(count_type(zoo("gnmt", {.layers = 2}).networks[0], "add") == 0);
}

TEST_CASE("zoo gnmt-tf: the same network with a decoder run one target step at a time") {
  const Model tf = zoo("gnmt-tf"), pt = zoo("gnmt");
  CHECK(tf.params() == pt.params());
  const GpuSpec v100 = parse_gpu_spec(
      SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("v100-sxm2-32gb", SourceLoc{}), "GPU"),
      "v100-sxm2-32gb");
  const LayerRun run{128, Precision::fp16};
  auto launches = [&](const Model& m, const std::string& layer) {
    const LayerNode& n = node(m.networks[0], layer);
    std::int64_t count = 0;
    const LayerKernels k = n.layer->kernels(v100, n.input_shapes, run);
    for (const auto* list : {&k.forward, &k.backward_data, &k.backward_weight}) {
      for (const Kernel& kernel : *list) count += kernel.count;
    }
    return count;
  };
  // Encoder layers are fused library ops in both; decoder layers and attention launch per target step.
  CHECK(launches(tf, "encoder_1") == launches(pt, "encoder_1"));
  CHECK(launches(tf, "decoder_1") > 50 * 40);  // 50 steps x (GEMMs + 19 forward and 38 backward cell ops)
  CHECK(launches(tf, "decoder_1") > 10 * launches(pt, "decoder_1"));
  CHECK(launches(tf, "attention") > 50 * launches(pt, "attention") / 2);
}

TEST_CASE("zoo bert pretraining: the masked-LM head runs on 15 % of the positions") {
  for (const std::int64_t seq : {128, 512}) {
    const Model m = zoo("bert-large-pretraining", {.seq_len = seq});
    const Network& net = m.networks[0];
    // ceil(0.15 x 128) = 20 and ceil(0.15 x 512) = 77 rows reach the 30,522-word projection.
    const std::int64_t masked = seq == 128 ? 20 : 77;
    CHECK(node(net, "mlm_transform").input_shapes[0] == Shape{masked, 1024});
    CHECK(node(net, "mlm_loss").input_shapes[0] == Shape{masked, 30522});
  }
}

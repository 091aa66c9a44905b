// Layer library: parameter counts, output shapes, FLOPs, activation memory and kernels of single layers,
// each checked against a hand count in the comment beside it.
#include <catch2/catch.hpp>

#include <algorithm>

#include <memory>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "workloads/layers/additive_attention.h"
#include "workloads/layers/attention.h"
#include "workloads/layers/conv2d.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/network.h"
#include "workloads/layers/normalization.h"
#include "workloads/layers/pooling.h"
#include "workloads/layers/recurrent.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

using namespace hpcsim;

namespace {

GpuSpec a100() {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("a100-sxm4-80gb", SourceLoc{}), "GPU"),
                        "a100-sxm4-80gb");
}

double total_flops(const std::vector<Kernel>& ks) {
  double f = 0;
  for (const Kernel& k : ks) f += k.work.flops * static_cast<double>(k.count);
  return f;
}

}  // namespace

TEST_CASE("conv2d: shapes with stride, padding, groups and dilation") {
  // 3x224x224, 64 filters 7x7 stride 2 pad 3 -> (224 + 6 - 7) / 2 + 1 = 112.
  Conv2d stem({.filters = 64, .kernel_h = 7, .kernel_w = 7, .stride_h = 2, .stride_w = 2, .pad_h = 3, .pad_w = 3,
               .bias = false});
  CHECK(stem.output_shape({{3, 224, 224}}) == Shape{64, 112, 112});
  CHECK(stem.params({{3, 224, 224}}) == 64 * 3 * 7 * 7);
  // 2 FLOPs per multiply-add: 64*112*112 outputs x 3*7*7 taps = 118,013,952 MACs per sample.
  CHECK(stem.forward_flops({{3, 224, 224}}, {1, Precision::fp32}) == Approx(2.0 * 118013952));

  // Depthwise 3x3 (groups = channels): 32 * 9 weights + 32 biases.
  Conv2d depthwise({.filters = 32, .kernel_h = 3, .kernel_w = 3, .pad_h = 1, .pad_w = 1, .groups = 32});
  CHECK(depthwise.params({{32, 10, 10}}) == 32 * 9 + 32);
  CHECK(depthwise.output_shape({{32, 10, 10}}) == Shape{32, 10, 10});
  CHECK_THROWS_AS(depthwise.output_shape({{30, 10, 10}}), ShapeError);  // 32 groups do not divide 30 channels

  // Dilation 2 widens a 3x3 filter to 5x5: 10 - 5 + 1 = 6.
  Conv2d dilated({.filters = 8, .kernel_h = 3, .kernel_w = 3, .dilation = 2});
  CHECK(dilated.output_shape({{4, 10, 10}}) == Shape{8, 6, 6});
  // TensorFlow "same": ceil(15 / 2) = 8.
  Conv2d same({.filters = 8, .kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2, .same = true});
  CHECK(same.output_shape({{4, 15, 15}}) == Shape{8, 8, 8});

  CHECK_THROWS_AS(Conv2d({.kernel_h = 5, .kernel_w = 5}).output_shape({{3, 4, 4}}), ShapeError);  // filter > image
  CHECK_THROWS_AS(stem.output_shape({{3, 224}}), ShapeError);      // not an image
}

TEST_CASE("conv2d: kernels carry the layer's FLOPs in each pass") {
  const GpuSpec gpu = a100();
  Conv2d conv({.filters = 128, .kernel_h = 3, .kernel_w = 3, .pad_h = 1, .pad_w = 1, .groups = 2, .bias = false});
  const Shapes in = {{64, 28, 28}};
  const LayerRun run{32, Precision::bf16};
  const LayerKernels k = conv.kernels(gpu, in, run);
  const double flops = conv.forward_flops(in, run);
  CHECK(total_flops(k.forward) == Approx(flops).epsilon(1e-9));
  CHECK(total_flops(k.backward_data) == Approx(flops).epsilon(1e-9));
  CHECK(total_flops(k.backward_weight) == Approx(flops).epsilon(1e-9));
  CHECK(estimate_op(gpu, k.forward).time_s > 0);
  CHECK(conv.activation_bytes(in, run) == 32.0 * 64 * 28 * 28 * 2);
}

TEST_CASE("conv2d_transpose: DCGAN's 4x4 stride-2 upsampling doubles the size") {
  Conv2dTranspose up({.filters = 256, .kernel_h = 4, .kernel_w = 4, .stride_h = 2, .stride_w = 2, .pad_h = 1,
                      .pad_w = 1, .bias = false});
  CHECK(up.output_shape({{512, 4, 4}}) == Shape{256, 8, 8});  // (4-1)*2 - 2 + 4 = 8
  CHECK(up.params({{512, 4, 4}}) == 512 * 256 * 16);
  // GPU model I's dgrad is a dense GEMM over every input pixel, so a stride-2 transpose issues
  // stride^2 = 4 times its useful multiply-adds (see docs/validation.md, Model zoo); stride 1 is exact.
  const LayerKernels k = up.kernels(a100(), {{512, 4, 4}}, {16, Precision::fp16});
  CHECK(total_flops(k.forward) == Approx(4 * up.forward_flops({{512, 4, 4}}, {16, Precision::fp16})));
  Conv2dTranspose flat({.filters = 64, .kernel_h = 3, .kernel_w = 3, .pad_h = 1, .pad_w = 1, .bias = false});
  const LayerKernels k1 = flat.kernels(a100(), {{32, 8, 8}}, {4, Precision::fp16});
  CHECK(total_flops(k1.forward) == Approx(flat.forward_flops({{32, 8, 8}}, {4, Precision::fp16})));
}

TEST_CASE("pooling: windows, ceil mode and global") {
  Pool2d pool({.kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2});
  CHECK(pool.output_shape({{64, 112, 112}}) == Shape{64, 55, 55});
  Pool2d ceil({.kernel_h = 3, .kernel_w = 3, .stride_h = 2, .stride_w = 2, .ceil_mode = true});
  CHECK(ceil.output_shape({{64, 112, 112}}) == Shape{64, 56, 56});  // GoogLeNet's stem
  Pool2d global({.mode = PoolMode::avg, .global = true});
  CHECK(global.output_shape({{2048, 7, 7}}) == Shape{2048});
  CHECK(global.activation_bytes({{2048, 7, 7}}, {8, Precision::fp32}) == 0);
  CHECK_THROWS_AS(pool.output_shape({{64, 2, 2}}), ShapeError);
}

TEST_CASE("dense and embedding") {
  Linear dense(64);
  CHECK(dense.params({{576}}) == 576 * 64 + 64);
  CHECK(dense.output_shape({{10, 576}}) == Shape{10, 64});  // applies to the last axis
  const LayerKernels k = dense.kernels(a100(), {{576}}, {128, Precision::fp32});
  CHECK(total_flops(k.forward) == Approx(2.0 * 128 * 576 * 64));
  CHECK(k.backward_data.size() == 1);
  CHECK(k.backward_weight.size() == 2);  // dW and the bias reduction

  Embedding emb(10000, 128);
  CHECK(emb.params({{80}}) == 1280000);
  CHECK(emb.output_shape({{80}}) == Shape{80, 128});
  CHECK_THROWS_AS(emb.output_shape({{80, 128}}), ShapeError);  // needs token ids
  CHECK(emb.kernels(a100(), {{80}}, {32, Precision::fp32}).backward_data.empty());
}

TEST_CASE("recurrent layers: Keras parameter counts, stacking and directions") {
  // SimpleRNN(64) on 128 features: 64*(128 + 64) + 64 = 12,352.
  Recurrent rnn({.cell = CellType::simple, .units = 64});
  CHECK(rnn.params({{500, 128}}) == 12352);
  CHECK(rnn.output_shape({{500, 128}}) == Shape{64});
  // LSTM(128) on 128: 4 * (128*(128+128) + 128) = 131,584.
  Recurrent lstm({.cell = CellType::lstm, .units = 128});
  CHECK(lstm.params({{40, 128}}) == 131584);
  // GRU(32) on 16, reset_after: 3 * (32*(16+32) + 2*32) = 4,800.
  Recurrent gru({.cell = CellType::gru, .units = 32});
  CHECK(gru.params({{10, 16}}) == 4800);
  // Two bidirectional LSTM layers of 64 on 100: layer 1 2*4*(64*164+64) = 84,480;
  // layer 2 sees 128 features: 2*4*(64*192+64) = 98,816.
  Recurrent bi({.cell = CellType::lstm, .units = 64, .layers = 2, .bidirectional = true, .return_sequences = true});
  CHECK(bi.params({{20, 100}}) == 84480 + 98816);
  CHECK(bi.output_shape({{20, 100}}) == Shape{20, 128});

  const LayerKernels k = lstm.kernels(a100(), {{40, 128}}, {64, Precision::fp16});
  CHECK(k.forward.size() == 3);
  CHECK(k.backward_data.size() == 3);
  CHECK(k.backward_weight.size() == 2);
  CHECK_THROWS_AS(lstm.output_shape({{40}}), ShapeError);
}

TEST_CASE("normalization, activations, dropout, softmax and loss") {
  BatchNorm bn;
  CHECK(bn.params({{256, 14, 14}}) == 512);
  LayerNorm ln, rms(true);
  CHECK(ln.params({{512, 768}}) == 1536);
  CHECK(rms.params({{512, 4096}}) == 4096);
  Activation swiglu(ActivationKind::swiglu);
  CHECK(swiglu.output_shape({{16, 2 * 14336}}) == Shape{16, 14336});
  CHECK_THROWS_AS(swiglu.output_shape({{16, 7}}), ShapeError);
  // Under tensor parallelism each GPU keeps whole [gate, up] pairs: ffn 53,248 over tp 3 is 17,750 of each
  // (35,500), not ceil(106,496 / 3) = 35,499, which swiglu could not split.
  CHECK(tp_shard_width(2 * 53248, 3, 2) == 35500);
  CHECK(swiglu.output_shape({{16, tp_shard_width(2 * 53248, 3, 2)}}) == Shape{16, 17750});
  CHECK(tp_shard_width(2 * 14336, 8, 2) == 2 * 14336 / 8);
  CHECK(tp_shard_width(1000, 3, 1) == 334);
  CHECK(tp_shard_width(1001, 2, 2) == 501);  // not pairs: split as one
  Dropout drop(0.1);
  CHECK(drop.activation_bytes({{100}}, {10, Precision::fp32}) == 1000);  // one byte of mask per value
  CHECK_THROWS_AS(Dropout(1.0), std::invalid_argument);
  CrossEntropyLoss loss;
  CHECK(loss.output_shape({{10}}) == Shape{1});
  const GpuSpec gpu = a100();
  for (const Layer* l : std::initializer_list<const Layer*>{&bn, &ln, &swiglu, &drop, &loss}) {
    const Shapes in = l == &bn ? Shapes{{64, 8, 8}} : Shapes{{16, 64}};
    const LayerKernels k = l->kernels(gpu, in, {8, Precision::bf16});
    CHECK(!k.forward.empty());
    CHECK(estimate_op(gpu, k.forward).time_s > 0);
  }
}

TEST_CASE("attention: multi-head and grouped-query parameter counts, causal FLOPs") {
  // BERT-base self-attention: 4 * (768*768 + 768) = 2,362,368.
  Attention mha({.heads = 12});
  CHECK(mha.params({{128, 768}}) == 2362368);
  CHECK(mha.output_shape({{128, 768}}) == Shape{128, 768});
  // Llama 3 8B: 32 heads, 8 KV heads of 128: q, o 4096^2 each, k, v 4096*1024 each, no biases.
  Attention gqa({.heads = 32, .kv_heads = 8, .causal = true, .bias = false});
  CHECK(gqa.params({{8192, 4096}}) == 2 * 4096LL * 4096 + 2 * 4096LL * 1024);
  // Causal attention skips half of the score work.
  Attention full({.heads = 32, .kv_heads = 8, .causal = false, .bias = false});
  const LayerRun run{1, Precision::bf16};
  const double proj = 2.0 * 2048 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024);
  CHECK(full.forward_flops({{2048, 4096}}, run) - proj ==
        Approx(2 * (gqa.forward_flops({{2048, 4096}}, run) - proj)));
  CHECK_THROWS_AS(Attention({.heads = 12, .kv_heads = 5}), std::invalid_argument);
  CHECK_THROWS_AS(mha.output_shape({{128, 100}}), ShapeError);  // 100 is not a multiple of 12 heads
  // Cross-attention: queries [10, 512] over a memory [30, 256].
  Attention cross({.heads = 8});
  CHECK(cross.output_shape({{10, 512}, {30, 256}}) == Shape{10, 512});
  CHECK(cross.params({{10, 512}, {30, 256}}) == 512 * 512 + 256 * 1024 + 512 * 512 + 512 + 1024 + 512);
  const LayerKernels k = cross.kernels(a100(), {{10, 512}, {30, 256}}, {4, Precision::fp32});
  CHECK(!k.backward_weight.empty());
}

TEST_CASE("fused attention: 16-bit and int8 self-attention run one kernel, fp32 puts the scores through HBM") {
  // [TRT] TensorRT's BERT plugins fuse multi-head attention for fp16 and int8 (the MLPerf BERT engines);
  // FlashAttention itself is 16-bit. fp32 has no fused kernel in either.
  const Shapes in{{384, 1024}};
  Attention att({.heads = 16});
  auto has_flash = [&](Precision p) {
    for (const Kernel& k : att.kernels(a100(), in, {8, p}).forward) {
      if (k.name.starts_with("flash_attention")) return true;
    }
    return false;
  };
  CHECK(has_flash(Precision::fp16));
  CHECK(has_flash(Precision::int8));
  CHECK_FALSE(has_flash(Precision::fp32));
}

TEST_CASE("attention-probability dropout: its own pass when unfused, on chip when fused") {
  const GpuSpec gpu = a100();
  const Shapes in{{128, 1024}};
  Attention plain({.heads = 16});
  Attention dropped({.heads = 16, .dropout = 0.1});
  LayerRun unfused{32, Precision::fp16};
  unfused.flash_attention = false;
  const LayerKernels p = plain.kernels(gpu, in, unfused), d = dropped.kernels(gpu, in, unfused);
  REQUIRE(d.forward.size() == p.forward.size() + 1);
  REQUIRE(d.backward_data.size() == p.backward_data.size() + 1);
  // Forward: after the softmax, before the context product; backward: between dP and the softmax gradient.
  CHECK(d.forward[d.forward.size() - 4].name.starts_with("softmax"));
  CHECK(d.forward[d.forward.size() - 3].name == "dropout");
  CHECK(d.forward[d.forward.size() - 2].name.find("pv") != std::string::npos);
  std::size_t i = 0;
  while (i < d.backward_data.size() && d.backward_data[i].name != "dropout_backward") ++i;
  REQUIRE(i > 0);
  REQUIRE(i + 1 < d.backward_data.size());
  CHECK(d.backward_data[i - 1].name.starts_with("dp_"));
  CHECK(d.backward_data[i + 1].name.starts_with("softmax"));
  const double scores = 32.0 * 16 * 128 * 128;
  // One byte of mask and the dropped fp16 probabilities are kept on top of the probabilities.
  CHECK(dropped.activation_bytes(in, unfused) - plain.activation_bytes(in, unfused) == Approx(scores * 3));
  CHECK(estimate_op(gpu, d.forward).time_s > estimate_op(gpu, p.forward).time_s);
  // FlashAttention applies the mask in its kernel: nothing changes.
  const LayerRun fused{32, Precision::fp16};
  CHECK(dropped.kernels(gpu, in, fused).forward.size() == plain.kernels(gpu, in, fused).forward.size());
  CHECK(dropped.activation_bytes(in, fused) == plain.activation_bytes(in, fused));
  CHECK_THROWS_AS(Attention({.heads = 16, .dropout = 1.0}), std::invalid_argument);
}

TEST_CASE("op by op: eager attention scales, masks and merges heads in passes: eager biases take a pass") {
  const GpuSpec gpu = a100();
  const Shapes in{{128, 1024}};
  Attention att({.heads = 16, .dropout = 0.1});
  auto names = [](const std::vector<Kernel>& ks) {
    std::vector<std::string> out;
    for (const Kernel& k : ks) out.push_back(k.name);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  LayerRun eager{32, Precision::fp16};
  eager.flash_attention = false;
  eager.op_by_op = true;
  const LayerKernels e = att.kernels(gpu, in, eager);
  const std::vector<std::string> f = names(e.forward), b = names(e.backward_data);
  for (const char* k : {"attention_scale", "attention_mask", "merge_heads_copy"}) CHECK(has(f, k));
  for (const char* k : {"attention_scale_backward", "merge_heads_copy_backward"}) CHECK(has(b, k));
  // Scaled and masked before the softmax.
  const auto scale = std::find(f.begin(), f.end(), "attention_scale");
  const auto soft = std::find_if(f.begin(), f.end(), [](const std::string& n) { return n.starts_with("softmax"); });
  CHECK(scale < soft);
  // A fusing compiler (op_by_op false) or FlashAttention folds them away.
  LayerRun compiled = eager;
  compiled.op_by_op = false;
  CHECK_FALSE(has(names(att.kernels(gpu, in, compiled).forward), "attention_scale"));
  LayerRun flash = eager;
  flash.flash_attention = true;
  CHECK_FALSE(has(names(att.kernels(gpu, in, flash).forward), "merge_heads_copy"));
  CHECK(estimate_op(gpu, e.forward).time_s > estimate_op(gpu, att.kernels(gpu, in, compiled).forward).time_s);
  // A dense layer's bias: in the GEMM epilogue, or a pass over the output of its own (PyTorch 1.x).
  Linear dense(4096);
  LayerRun separate{32, Precision::fp16};
  separate.bias_epilogue = false;
  CHECK(dense.kernels(gpu, in, {32, Precision::fp16}).forward.size() == 1);
  const LayerKernels d = dense.kernels(gpu, in, separate);
  REQUIRE(d.forward.size() == 2);
  CHECK(d.forward[1].name == "bias_add");
  CHECK(Linear(4096, false).kernels(gpu, in, separate).forward.size() == 1);  // no bias, no pass
}

TEST_CASE("merges and reshapes") {
  Add add;
  CHECK(add.output_shape({{64, 8, 8}, {64, 8, 8}}) == Shape{64, 8, 8});
  CHECK_THROWS_AS(add.output_shape({{64, 8, 8}, {32, 8, 8}}), ShapeError);
  Concat cat;
  CHECK(cat.output_shape({{64, 28, 28}, {128, 28, 28}, {32, 28, 28}}) == Shape{224, 28, 28});
  CHECK_THROWS_AS(cat.output_shape({{64, 28, 28}, {64, 14, 14}}), ShapeError);
  Flatten flat;
  CHECK(flat.output_shape({{64, 3, 3}}) == Shape{576});
  FirstToken cls;
  CHECK(cls.output_shape({{512, 768}}) == Shape{768});
}

TEST_CASE("network: shape errors name the layer") {
  Network net("toy");
  net.add_input("image", {1, 28, 28});
  net.add("conv", std::make_shared<Conv2d>(Conv2dConfig{.filters = 8, .kernel_h = 3, .kernel_w = 3}));
  net.add("flat", std::make_shared<Flatten>());
  net.add("out", std::make_shared<Linear>(10));
  CHECK(net.output_shape() == Shape{10});
  CHECK(net.params() == 8 * 9 + 8 + 8 * 26 * 26 * 10 + 10);
  try {
    net.add("bad", std::make_shared<Conv2d>(Conv2dConfig{.filters = 8, .kernel_h = 3, .kernel_w = 3}));
    FAIL("a conv on a vector must not be accepted");
  } catch (const ShapeError& e) {
    CHECK(std::string(e.what()).find("bad (conv2d): expects [channels, height, width], got [10]") != std::string::npos);
  }
  CHECK_THROWS_AS(net.add("conv", std::make_shared<Flatten>()), std::invalid_argument);  // duplicate name
}

TEST_CASE("additive (Bahdanau) attention: GNMT's parameters, the context shape, the pairwise tensor's traffic") {
  const AdditiveAttention att(1024);
  const Shapes in{{50, 1024}, {40, 1024}};
  CHECK(att.output_shape(in) == Shape{50, 1024});
  CHECK(att.params(in) == 2 * 1024 * 1024 + 2 * 1024 + 1);  // DLE BahdanauAttention(normalize=True)
  CHECK_THROWS_AS(att.output_shape({{50, 1024}}), ShapeError);
  const LayerRun run{128, Precision::fp16};
  // Each pass over the [128, 50, 40, 1024] tensor moves at least one element of it per pair and unit.
  const double big = 128.0 * 50 * 40 * 1024 * 2;
  const GpuSpec gpu = a100();
  const LayerKernels k = att.kernels(gpu, in, run);
  double forward_bytes = 0;
  for (const Kernel& kernel : k.forward) forward_bytes += estimate_op(gpu, {kernel}).hbm_bytes;
  CHECK(forward_bytes > 2 * big);  // the tanh tensor written, then read for the score
  CHECK(att.activation_bytes(in, run) > big);
  CHECK(att.forward_flops(in, run) > 2.0 * 128 * 1024 * 1024 * 90);
}

TEST_CASE("a network refuses a tensor or weight count no GPU holds, before any product can overflow", "[layers]") {
  using hpcsim::Linear;
  using hpcsim::Network;
  using hpcsim::ShapeError;
  // 2^48 elements per sample is the most; one more is refused at the input.
  Network ok("ok");
  CHECK_NOTHROW(ok.add_input("x", {std::int64_t{1} << 24, std::int64_t{1} << 24}));
  Network big("big");
  CHECK_THROWS_WITH(big.add_input("x", {(std::int64_t{1} << 24) + 1, std::int64_t{1} << 24}),
                    Catch::Contains("input 'x'") && Catch::Contains("more than 2^48 elements per sample"));
  // A dimension past 2^31-1 (cuBLAS's 32-bit sizes) is refused at the layer that makes it.
  Network wide("wide");
  wide.add_input("x", {16, 1024});
  CHECK_NOTHROW(wide.add("fits", std::make_shared<Linear>(2147483647)));
  CHECK_THROWS_WITH(wide.add("fc", std::make_shared<Linear>(std::int64_t{1} << 31)),
                    Catch::Contains("fc (dense)") && Catch::Contains("dimension over 2^31-1"));
  // Weights: 2^31-1 x 2^31-1 fits 64 bits and is far past 2^48.
  CHECK_THROWS_WITH(wide.add("square", std::make_shared<Linear>(2147483647)),
                    Catch::Contains("square (dense)") && Catch::Contains("weights are more than 2^48"));
  CHECK_THROWS_AS(wide.add("square2", std::make_shared<Linear>(2147483647)), ShapeError);
  // Weight counts saturate instead of overflowing: three 2^31 x 2^31 products (an attention of width 2^31-1)
  // would pass 2^63; capped, they are just "more than 2^48".
  CHECK(hpcsim::capped_product({2147483647, 2147483647}) == hpcsim::kMaxTensorElements + 1);
  CHECK(hpcsim::capped_product({2147483647, 2147483647, 0}) == 0);
  CHECK(hpcsim::capped_product({std::int64_t{1} << 24, std::int64_t{1} << 24}) == hpcsim::kMaxTensorElements);
  CHECK(3 * hpcsim::capped_product({2147483647, 2147483647}) > hpcsim::kMaxTensorElements);
}

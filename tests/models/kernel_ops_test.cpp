// Op kernels on the shipped GPU specs: published reference measurements (each with its source) and
// properties of the GEMM and memory-bound models.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/ops/attention.h"
#include "models/gpu/ops/conv.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/embedding.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/normalization.h"
#include "models/gpu/ops/optimizer.h"
#include "models/gpu/ops/recurrent.h"

using namespace hpcsim;

namespace {

GpuSpec shipped(const std::string& name) {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar(name, SourceLoc{}), "GPU"), name);
}

double gemm_tflops(const GpuSpec& g, std::int64_t m, std::int64_t n, std::int64_t k, Precision p = Precision::bf16) {
  return estimate_op(g, {gemm(g, {m, n, k, 1, p})}).flops_per_s / 1e12;
}

void report(const char* what, double predicted, double measured) {
  std::printf("%-48s predicted %8.1f measured %8.1f error %+6.1f %%\n", what, predicted, measured,
              100 * (predicted - measured) / measured);
}

}  // namespace

// Reference figures, copied here with their sources (not read from ../shared):
// [H200] one H200 SXM machine, PyTorch 2.11, driver 580, October-November 2026: an 8192^3 bf16 matmul ran
//        at 769-798 TFLOP/s; a large device-to-device copy moved ~4.3 TB/s counting bytes read plus written.
// [MAMF] stas00/ml-engineering compute/accelerator/README.md @744d01e, mamf-finder.py best shapes (BF16):
//        A100 SXM 271.2 TFLOP/s at 1024x10240x5120; H100 SXM 794.5 TFLOP/s at 2048x2048x13312.
TEST_CASE("reference: H200 8192^3 bf16 matmul within 10 % of 769-798 TFLOP/s [acceptance]") {
  const double predicted = gemm_tflops(shipped("h200-sxm-141gb"), 8192, 8192, 8192);
  report("H200 gemm 8192^3 bf16 (TFLOP/s, mid of range)", predicted, 783.5);
  CHECK(predicted >= 769 * 0.9);
  CHECK(predicted <= 798 * 1.1);
}

TEST_CASE("reference: H200 large device-to-device copy within 10 % of 4.3 TB/s [acceptance]") {
  const GpuSpec g = shipped("h200-sxm-141gb");
  const double predicted = estimate_op(g, copy_op(4.0 * (1 << 30))).bytes_per_s / 1e12;
  report("H200 copy 4 GiB (TB/s, read + write)", predicted, 4.3);
  CHECK(predicted == Approx(4.3).epsilon(0.10));
}

TEST_CASE("reference: A100 best-shape bf16 matmul within 10 % of 271.2 TFLOP/s [acceptance]") {
  const double predicted = gemm_tflops(shipped("a100-sxm4-80gb"), 1024, 10240, 5120);
  report("A100 gemm 1024x10240x5120 bf16 (TFLOP/s)", predicted, 271.2);
  CHECK(predicted == Approx(271.2).epsilon(0.10));
}

// [CUTLASS] NVIDIA/cutlass media/docs/profiler.md @0823de8, "Example Tensor Core GEMM Operations":
//           3456x4096x8192 fp16 with the default 256x128 tile, 235,138 GFLOP/s on an SM 8.0 GPU. The A100's
//           matmul fraction is fitted to this row and the mamf-finder one together: neither is met exactly.
TEST_CASE("reference: A100 typical fp16 matmul within 10 % of CUTLASS's 235.1 TFLOP/s") {
  const GpuSpec g = shipped("a100-sxm4-80gb");
  const double predicted = gemm_tflops(g, 3456, 4096, 8192, Precision::fp16);
  report("A100 gemm 3456x4096x8192 fp16 (TFLOP/s)", predicted, 235.1);
  CHECK(predicted == Approx(235.1).epsilon(0.10));
  // The fit sits between the two rows: above the typical GEMM, below the sweep's best.
  CHECK(predicted > 235.1);
  CHECK(gemm_tflops(g, 1024, 10240, 5120) < 271.2);
}

TEST_CASE("reference: H100 best-shape bf16 matmul within 10 % of 794.5 TFLOP/s [acceptance]") {
  const double predicted = gemm_tflops(shipped("h100-sxm5-80gb"), 2048, 2048, 13312);
  report("H100 gemm 2048x2048x13312 bf16 (TFLOP/s)", predicted, 794.5);
  CHECK(predicted == Approx(794.5).epsilon(0.10));
}

TEST_CASE("SIMT GEMMs reach the spec's measured fraction of the vector peak: tensor GEMMs ignore it") {
  // [DB] DeepBench V100 SGEMM 1760x7000x1760 12.85 TFLOP/s and [CUTLASS] A100 SIMT SGEMM 3456x4096x4096
  // 17.2 TFLOP/s: one simt_matmul for every GPU (configs/calibration.yaml, fitted over every row that depends
  // on it) puts both within 6 % (the V100 row +5.3 % since launch and work add, 2026-12-04). (Until the test
  // names lost their ';', ctest never ran this case: the V100 row had moved from its old per-GPU 3 % bound when
  // the fraction became one calibrated value.)
  const GpuSpec v100 = shipped("v100-sxm2-16gb"), a100 = shipped("a100-sxm4-80gb");
  CHECK(v100.simt_matmul_fraction < 1);
  const Kernel k = gemm(v100, {1760, 7000, 1760, 1, Precision::fp32});
  CHECK(k.work.unit == MathUnit::vector);
  CHECK(k.work.math_efficiency == Approx(v100.simt_matmul_fraction));
  CHECK(gemm_tflops(v100, 1760, 7000, 1760, Precision::fp32) == Approx(12.85).epsilon(0.06));
  CHECK(gemm_tflops(a100, 3456, 4096, 4096, Precision::fp32) == Approx(17.22).epsilon(0.06));
  CHECK(gemm(a100, {4096, 4096, 4096, 1, Precision::bf16}).work.math_efficiency == 1.0);
}

TEST_CASE("a GEMM tile's epilogue is serial, on Hopper too: at L2's rate while the output fits, at HBM's beyond") {
  // A CTA stores its output tile after its main loop while its math units idle. An output larger than L2
  // leaves for HBM as it is written, so the SMs' stores together go at HBM's speed.
  for (const char* name : {"a100-sxm4-80gb", "h100-sxm5-80gb"}) {
    INFO(name);
    const GpuSpec g = shipped(name);
    const double l2_rate = g.memory.l2_bandwidth / g.sm_count / g.boost_clock_hz;
    const double hbm_rate = g.achievable_memory_bandwidth() / g.sm_count / g.boost_clock_hz;
    REQUIRE(hbm_rate < l2_rate);
    const GemmShape large{32768, 4096, 1024, 1, Precision::fp16};  // 268 MB of output
    const GemmShape small{2048, 2048, 1024, 1, Precision::fp16};   // 8 MB
    REQUIRE(2048.0 * 2048 * 2 < g.memory.l2_bytes);
    REQUIRE(32768.0 * 4096 * 2 > g.memory.l2_bytes);
    const double fill = g.memory.hbm_latency_cycles;
    CHECK(gemm_kernel(g, large, {256, 128}).work.block_latency_cycles - fill == Approx(256 * 128 * 2 / hbm_rate));
    CHECK(gemm_kernel(g, small, {256, 128}).work.block_latency_cycles - fill == Approx(256 * 128 * 2 / l2_rate));
    // The same output with a sixteenth of the K loop: the epilogue weighs ~16x more.
    const double long_k = gemm_tflops(g, 32768, 4096, 4096, Precision::fp16);
    const double short_k = gemm_tflops(g, 32768, 4096, 256, Precision::fp16);
    CHECK(short_k < 0.8 * long_k);
  }
}

TEST_CASE("H200 GEMM time against K under a fixed output meets K = 0 where cuBLAS's does") {
  // bench/cuda/measurements/2026-12-04-h200-kernels: bf16, 16,384 x 4,096 output (134 MB), CUDA-graph replay;
  // lines through K = 128 and 256 and through K = 512 and 2048 meet K = 0 at 25.3 and 30.7 us.
  const GpuSpec g = shipped("h200-sxm-141gb");
  auto time_us = [&](std::int64_t k) {
    const Kernel kern = gemm(g, {16384, 4096, k, 1, Precision::bf16});
    return estimate_kernel(g, kern.launch, kern.work).time_s * 1e6;
  };
  const double t512 = time_us(512), t2048 = time_us(2048);
  const double intercept = t512 - 512 * (t2048 - t512) / 1536;
  CHECK(intercept > 20.0);
  CHECK(intercept < 40.0);
}

TEST_CASE("GEMM efficiency falls for small shapes") {
  for (const char* name : {"a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb"}) {
    const GpuSpec g = shipped(name);
    INFO(name);
    CHECK(gemm_tflops(g, 1024, 1024, 1024) < 0.9 * gemm_tflops(g, 8192, 8192, 8192));
    CHECK(gemm_tflops(g, 128, 128, 128) < gemm_tflops(g, 1024, 1024, 1024));
  }
}

TEST_CASE("GEMM efficiency falls for a badly quantized shape on the A100") {
  const GpuSpec g = shipped("a100-sxm4-80gb");
  CHECK(gemm_tflops(g, 8192, 8193, 8192) < gemm_tflops(g, 8192, 8192, 8192));
}

// Known miss (docs/validation.md, "GPU kernel model"): on Hopper an unaligned N loses TMA and the
// warp-specialized wgmma kernels; the model has no separate rate for the fallback kernels, so it predicts
// no loss. Kept as a failing-allowed test so the gap stays visible.
TEST_CASE("GEMM efficiency falls for a badly quantized shape on the H200", "[!mayfail]") {
  const GpuSpec g = shipped("h200-sxm-141gb");
  CHECK(gemm_tflops(g, 8192, 8193, 8192) < 0.95 * gemm_tflops(g, 8192, 8192, 8192));
}

TEST_CASE("GEMM picks a tile and pads it: wasted tile work costs time") {
  const GpuSpec g = shipped("h100-sxm5-80gb");
  const Kernel k = gemm(g, {8192, 8192, 8192, 1, Precision::bf16});
  CHECK(k.work.unit == MathUnit::tensor);
  CHECK(k.work.issued_flops == Approx(k.work.flops));
  // 8192 + 1 rows adds a whole row of tiles.
  const Kernel padded = gemm_kernel(g, {8193, 8192, 8192, 1, Precision::bf16}, {256, 128});
  CHECK(padded.work.issued_flops > padded.work.flops * 1.02);
  // fp32 without TF32 runs on the vector unit, far slower.
  CHECK(gemm(g, {4096, 4096, 4096, 1, Precision::fp32}).work.unit == MathUnit::vector);
  CHECK(gemm_tflops(g, 4096, 4096, 4096, Precision::fp32) < gemm_tflops(g, 4096, 4096, 4096, Precision::tf32));
  CHECK_THROWS_WITH(gemm(shipped("a100-sxm4-80gb"), {64, 64, 64, 1, Precision::fp8}), Catch::Contains("fp8"));
  CHECK_THROWS_AS(gemm(g, {0, 64, 64, 1, Precision::bf16}), std::invalid_argument);
}

TEST_CASE("a GEMM's choice is a value: the fastest tile and split for its shape, reusable on another shape") {
  const GpuSpec g = shipped("a100-sxm4-80gb");
  // A short-M, long-K product leaves most SMs idle without split-K: the choice splits K.
  const GemmShape skinny{64, 1024, 8192, 1, Precision::fp16};
  const GemmChoice choice = gemm_choice(g, skinny);
  CHECK(choice.split > 1);
  CHECK(estimate_op(g, {gemm_choice_kernel(g, skinny, choice)}).time_s == Approx(estimate_op(g, {gemm(g, skinny)}).time_s));
  CHECK(gemm_choice_kernel(g, skinny, choice).name == gemm(g, skinny).name);
  // No other tile or split beats it.
  for (const CtaTile& tile : gemm_cta_tiles()) {
    for (std::int64_t split : {1, 2, 4, 8}) {
      CHECK(estimate_op(g, {gemm_choice_kernel(g, skinny, {tile, split})}).time_s >=
            estimate_op(g, {gemm(g, skinny)}).time_s * (1 - 1e-12));
    }
  }
  // The choice for a big square product, run on the skinny one, is slower than the skinny one's own.
  const GemmChoice square = gemm_choice(g, {8192, 8192, 8192, 1, Precision::fp16});
  CHECK(square.split == 1);
  CHECK(estimate_op(g, {gemm_choice_kernel(g, skinny, square)}).time_s > estimate_op(g, {gemm(g, skinny)}).time_s);
  CHECK_THROWS_AS(gemm_choice_kernel(g, skinny, {{128, 128}, 0}), std::invalid_argument);
}

TEST_CASE("split-K sums its partial tiles in place, one CTA after another (CUTLASS serial split-K)") {
  const GpuSpec g = shipped("h200-sxm-141gb");
  const GemmShape skinny{64, 1024, 8192, 1, Precision::bf16};
  const CtaTile tile{128, 64};
  const Kernel whole = gemm_choice_kernel(g, skinny, {tile, 1});
  const double tile_bytes = 128.0 * 64 * 2;
  const double l2_per_cycle_per_sm = g.memory.l2_bandwidth / g.sm_count / g.boost_clock_hz;
  const double round = g.memory.l2_latency_cycles + 2 * tile_bytes / l2_per_cycle_per_sm;
  const auto read_bytes = [](const Kernel& k) {
    double read = 0;
    for (int i = 0; i < k.work.global_count; ++i) {
      if (!k.work.global[i].write) read += k.work.global[i].bytes;
    }
    return read;
  };
  for (std::int64_t split : {2, 4, 8}) {
    const Kernel parts = gemm_choice_kernel(g, skinny, {tile, split});
    // Each CTA of a tile after the first waits for the one before it, reads the partial tile and writes it back.
    CHECK(parts.work.block_latency_cycles == Approx(whole.work.block_latency_cycles + (split - 1) * round));
    // ... and the partials it reads are traffic of their own.
    CHECK(read_bytes(parts) - read_bytes(whole) >= (split - 1) * 64.0 * 1024 * 2 * (1 - 1e-12));
  }
  // A product that fills the GPU only through split-K still splits, but a square 1024^3 one on an H200
  // no longer gains from it: the serial sums cost more than the idle SMs would.
  CHECK(gemm_choice(g, skinny).split > 1);
  CHECK(gemm_choice(g, {1024, 1024, 1024, 1, Precision::bf16}).split == 1);
}

TEST_CASE("memory-bound ops run at the achievable bandwidth: a framework's pointwise kernels at their share of it") {
  const GpuSpec g = shipped("a100-sxm4-80gb");
  const double achievable = g.achievable_memory_bandwidth();
  REQUIRE(g.pointwise_memory_fraction < 1);  // the calibrated parameter fills the spec
  CHECK(estimate_op(g, copy_op(1e9)).bytes_per_s == Approx(achievable).epsilon(0.01));
  const double pointwise = achievable * g.pointwise_memory_fraction;
  const ElementwiseChain add{1e9, 1, 2, 1, Precision::fp32, false};
  CHECK(estimate_op(g, elementwise_chain(add)).bytes_per_s == Approx(pointwise).epsilon(0.01));
  const OpTime ln = estimate_op(g, layer_norm(65536, 4096, Precision::bf16));
  CHECK(ln.bound == Bound::memory);
  CHECK(ln.bytes_per_s == Approx(pointwise).epsilon(0.05));
}

TEST_CASE("fusing an elementwise chain saves the intermediate round trips") {
  const GpuSpec g = shipped("h100-sxm5-80gb");
  ElementwiseChain chain{1 << 26, 4, 2, 1, Precision::bf16, false};
  const OpTime unfused = estimate_op(g, elementwise_chain(chain));
  chain.fused = true;
  const OpTime fused = estimate_op(g, elementwise_chain(chain));
  CHECK(unfused.launches == 4);
  CHECK(fused.launches == 1);
  CHECK(fused.hbm_bytes < unfused.hbm_bytes);
  CHECK(fused.time_s < unfused.time_s);
}

TEST_CASE("flash attention beats unfused attention at long sequences and does the same math") {
  const GpuSpec g = shipped("h100-sxm5-80gb");
  const AttentionShape shape{8, 16, 4096, 128, false, Precision::bf16};
  const OpTime unfused = estimate_op(g, attention(g, shape, false));
  const OpTime fused = estimate_op(g, attention(g, shape, true));
  CHECK(fused.flops == Approx(unfused.flops).epsilon(0.02));  // unfused adds the softmax's few FLOPs
  CHECK(fused.time_s < unfused.time_s);
  CHECK(fused.hbm_bytes < unfused.hbm_bytes / 10);
  AttentionShape causal = shape;
  causal.causal = true;
  CHECK(estimate_op(g, attention(g, causal, true)).time_s < 0.6 * fused.time_s);
}

TEST_CASE("flash attention past 10^7 query blocks sums its blocks in closed form and scales as the loop did") {
  // 1.2e9 tokens are 9.4e6 blocks of 128 queries (summed one by one); 2.4e9 are 1.9e7 (in closed form, where
  // hpcsim refused with an internal error before): causal attention's work grows as the square of the sequence.
  const GpuSpec g = shipped("h100-sxm5-80gb");
  for (const bool causal : {false, true}) {
    const AttentionShape below{1, 1, 1200000000, 128, causal, Precision::bf16};
    AttentionShape above = below;
    above.seq = 2 * below.seq;
    CHECK(attention(g, above, true).front().work.issued_flops ==
          Approx(4 * attention(g, below, true).front().work.issued_flops).epsilon(1e-6));
    CHECK(attention_backward_fused(g, above).work.issued_flops ==
          Approx(4 * attention_backward_fused(g, below).work.issued_flops).epsilon(1e-6));
  }
}

TEST_CASE("flash attention's tiles fit the GPU's shared memory per block, as FlashAttention-2 sizes them") {
  // 128 queries x 64 keys at head dim 128 in bf16 take 96 KiB: an A100 (163 KiB per block) keeps them; an
  // MI300X (64 KiB per block) halves the key tile to 32 (64 KiB), FlashAttention-2's 128 x 32 of sm86.
  const AttentionShape shape{8, 16, 2048, 128, true, Precision::bf16};
  const GpuSpec a100 = shipped("a100-sxm4-80gb");
  CHECK(attention(a100, shape, true).front().launch.smem_per_block == 98304);
  const GpuSpec mi300x = shipped("mi300x");
  const Kernel small = attention(mi300x, shape, true).front();
  CHECK(small.launch.smem_per_block == 65536);
  CHECK(small.launch.smem_per_block <= mi300x.sm.max_smem_per_block);
  const OpTime t = estimate_op(mi300x, {small});
  CHECK(t.time_s > 0);
  CHECK(std::isfinite(t.time_s));
  // Head dim 256: keys down to 16, then the query block halves; every tile still fits.
  const AttentionShape wide{8, 16, 2048, 256, true, Precision::bf16};
  const Kernel w = attention(mi300x, wide, true).front();
  CHECK(w.launch.smem_per_block <= mi300x.sm.max_smem_per_block);
  CHECK(w.launch.blocks > attention(a100, wide, true).front().launch.blocks);  // smaller query blocks, more of them
}

TEST_CASE("causal flash attention computes the tiles the diagonal crosses in full, above it none") {
  // 512 tokens: 4 blocks of 128 queries see 128, 256, 384 and 512 keys, 20 tiles of 64 against 32 unmasked:
  // 5/8 of the unmasked work, not 1/2. The backward's 4 blocks of 128 keys see 512, 384, 256, 128 queries.
  const GpuSpec g = shipped("h100-sxm5-80gb");
  for (const std::int64_t seq : {512, 4096}) {
    INFO(seq);
    const AttentionShape full{8, 16, seq, 64, false, Precision::bf16};
    AttentionShape causal = full;
    causal.causal = true;
    const double blocks = static_cast<double>(seq) / 128;
    const double share = (blocks + 1) / (2 * blocks);  // sum of (i + 1) over the blocks, over blocks^2
    const KernelWork fwd_full = attention(g, full, true).front().work, fwd_causal = attention(g, causal, true).front().work;
    CHECK(fwd_causal.issued_flops == Approx(share * fwd_full.issued_flops));
    CHECK(fwd_causal.flops == Approx(0.5 * fwd_full.flops));  // the useful work stays half
    CHECK(attention_backward_fused(g, causal).work.issued_flops ==
          Approx(share * attention_backward_fused(g, full).work.issued_flops));
  }
}

TEST_CASE("flash attention's exponentials run beside its products, one per score, on 16 lanes per SM") {
  const GpuSpec g = shipped("h100-sxm5-80gb");
  // FlashAttention-3 (arXiv 2407.08608) Table 2: H100 SXM5, FP16 forward, batch 4, 8,448 tokens, 16 heads of
  // 128: 582 TFLOP/s without GEMM-softmax pipelining (warp-specialized), 570 with pipelining but without
  // warp specialization, 661 with both. The model serializes the softmax's exponentials with the products.
  const AttentionShape fa3{4, 16, 8448, 128, false, Precision::fp16};
  const OpTime t = estimate_op(g, attention(g, fa3, true));
  CHECK(t.flops / t.time_s == Approx(576e12).epsilon(0.05));
  const std::vector<Kernel> k = attention(g, fa3, true);
  CHECK(k.front().work.special_ops == Approx(k.front().work.issued_flops / (4 * 128)).epsilon(1e-12));
  // The exponentials do not get faster with the math: FP8 gains less than the tensor peak's 2x, and a
  // head of 64 (half the products per exponential) gains less than one of 128.
  AttentionShape fp8 = fa3;
  fp8.precision = Precision::fp8;
  const OpTime t8 = estimate_op(g, attention(g, fp8, true));
  CHECK(t.time_s / t8.time_s > 1.2);
  CHECK(t.time_s / t8.time_s < 1.6);
  const AttentionShape d64{4, 32, 8448, 64, false, Precision::fp16};
  const OpTime t64 = estimate_op(g, attention(g, d64, true));
  CHECK(t64.flops / t64.time_s < 0.85 * t.flops / t.time_s);
}

TEST_CASE("an LSTM layer launches a recurrent GEMM and a gate kernel per step: training adds backward") {
  const GpuSpec g = shipped("h100-sxm5-80gb");
  RecurrentShape lstm{RecurrentCell::lstm, 1024, 128, 25, 0, Precision::fp16, false};
  const std::vector<Kernel> inference = recurrent_layer(g, lstm);
  const OpTime fwd = estimate_op(g, inference);
  CHECK(fwd.launches == 1 + 25 + 25);
  // Forward GEMM FLOPs 2 * (steps*batch) * 4h * (input + hidden), plus the gates' pointwise math.
  CHECK(fwd.flops == Approx(2.0 * 25 * 128 * 4096 * 2048).epsilon(0.01));
  lstm.train = true;
  const OpTime train = estimate_op(g, recurrent_layer(g, lstm));
  CHECK(train.flops == Approx(3 * fwd.flops).epsilon(0.01));
  CHECK(train.time_s > 2 * fwd.time_s);
  RecurrentShape gru = lstm;
  gru.cell = RecurrentCell::gru;
  CHECK(estimate_op(g, recurrent_layer(g, gru)).flops == Approx(0.75 * train.flops).epsilon(0.01));
}

TEST_CASE("convolution passes are implicit GEMMs with the same FLOPs") {
  const GpuSpec g = shipped("a100-sxm4-80gb");
  const ConvShape c{64, 256, 56, 56, 256, 3, 3, 1, 1, Precision::fp16};
  const double flops = 2.0 * 64 * 56 * 56 * 256 * 256 * 9;
  for (ConvPass pass : {ConvPass::forward, ConvPass::backward_data, ConvPass::backward_weight}) {
    const Kernel k = conv2d(g, c, pass);
    CHECK(k.work.flops == Approx(flops));
    CHECK(estimate_op(g, {k}).bound == Bound::compute);
  }
  ConvShape bad = c;
  bad.h = 1, bad.pad = 0;
  CHECK_THROWS_AS(conv2d(g, bad, ConvPass::forward), std::invalid_argument);
}

TEST_CASE("a convolution run by kernels tuned for another batch: the same math, no faster than its own choice") {
  const GpuSpec g = shipped("a100-sxm4-80gb");
  // ResNet-50's last 3x3 convolution (512 channels at 7x7): batch 1 on a batch-128 engine's kernel.
  const ConvShape one{1, 512, 7, 7, 512, 3, 3, 1, 1, Precision::fp16};
  const Kernel own = conv2d(g, one, ConvPass::forward);
  const Kernel tuned = conv2d_tuned_for(g, one, 128);
  CHECK(tuned.work.flops == Approx(own.work.flops));
  const double own_s = estimate_op(g, {own}).time_s, tuned_s = estimate_op(g, {tuned}).time_s;
  // The batch-128 choice (a large tile, no split-K) leaves most SMs idle on 49 output rows.
  CHECK(tuned_s > 3 * own_s);
  // Tuned for the batch that runs, it is the per-call choice itself.
  CHECK(estimate_op(g, {conv2d_tuned_for(g, one, 1)}).time_s == Approx(own_s));
  ConvShape big = one;
  big.n = 128;
  CHECK(estimate_op(g, {conv2d_tuned_for(g, big, 128)}).time_s == Approx(estimate_op(g, {conv2d(g, big, ConvPass::forward)}).time_s));
  // Any batch's own choice is at least as fast as a borrowed one.
  for (std::int64_t n : {2, 8, 32}) {
    ConvShape s = one;
    s.n = n;
    CHECK(estimate_op(g, {conv2d(g, s, ConvPass::forward)}).time_s <= estimate_op(g, {conv2d_tuned_for(g, s, 128)}).time_s);
  }
  CHECK_THROWS_AS(conv2d_tuned_for(g, one, 0), std::invalid_argument);
}

TEST_CASE("Winograd F(4x4, 3x3): a quarter of the multiply-adds, chosen for 3x3 fp32 convolutions only") {
  const GpuSpec v100 = shipped("v100-sxm2-32gb");
  const ConvShape c{64, 256, 56, 56, 256, 3, 3, 1, 1, Precision::fp32};  // a VGG/ResNet 3x3 layer
  for (ConvPass pass : {ConvPass::forward, ConvPass::backward_data}) {
    const std::vector<Kernel> w = conv2d_winograd(v100, c, pass);
    REQUIRE(w.size() == 4);  // filter transform, input transform, 36 batched GEMMs, output transform
    const Kernel& batched = w[2];
    // 36 GEMMs over ceil(56/4)^2 tiles per image: 36/16 = 2.25 multiply-adds per output, not 9.
    CHECK(batched.work.flops == Approx(2.0 * 36 * (64 * 14 * 14) * 256 * 256));
    const std::vector<Kernel> fastest = conv2d_fastest(v100, c, pass);
    CHECK(fastest.size() == 4);  // on the vector unit Winograd is faster here
    CHECK(estimate_op(v100, fastest).time_s < estimate_op(v100, {conv2d(v100, c, pass)}).time_s);
  }
  CHECK(conv2d_winograd(v100, c, ConvPass::backward_weight).empty());
  ConvShape strided = c;
  strided.stride = 2;
  CHECK(conv2d_winograd(v100, strided, ConvPass::forward).empty());
  ConvShape pointwise = c;
  pointwise.r = pointwise.s = 1, pointwise.pad = 0;
  CHECK(conv2d_winograd(v100, pointwise, ConvPass::forward).empty());
  // Tensor-core precisions stay implicit GEMM (cuDNN's tensor-core convolutions).
  ConvShape half = c;
  half.precision = Precision::fp16;
  CHECK(conv2d_fastest(v100, half, ConvPass::forward).size() == 1);
}

TEST_CASE("optimizer implementations: fused < foreach < per-tensor loop for many small tensors") {
  const GpuSpec g = shipped("h100-sxm5-80gb");
  OptimizerStep step{OptimizerKind::adamw, OptimizerImpl::unfused, 50e6, 400, Precision::fp32};
  const OpTime loop = estimate_op(g, optimizer_step(step));
  step.impl = OptimizerImpl::foreach;
  const OpTime foreach = estimate_op(g, optimizer_step(step));
  step.impl = OptimizerImpl::fused;
  const OpTime fused = estimate_op(g, optimizer_step(step));
  CHECK(loop.launches == 400 * 8);
  CHECK(foreach.launches < loop.launches);
  CHECK(fused.time_s < foreach.time_s);
  CHECK(foreach.time_s < loop.time_s);
  // A fused AdamW step reads parameters, gradients and two moments and writes three: 28 bytes/parameter.
  CHECK(fused.hbm_bytes == Approx(28 * 50e6).epsilon(0.01));
  step.kind = OptimizerKind::sgd;
  CHECK(estimate_op(g, optimizer_step(step)).time_s < fused.time_s);
}

TEST_CASE("embedding: gathers read only distinct rows: scatter-add writes the table rows") {
  const GpuSpec g = shipped("a100-sxm4-80gb");
  const EmbeddingShape small_vocab{1 << 20, 256, 1000, Precision::fp32};
  const EmbeddingShape large_vocab{1 << 20, 256, 1 << 24, Precision::fp32};
  CHECK(estimate_op(g, embedding_gather(small_vocab)).hbm_bytes <
        estimate_op(g, embedding_gather(large_vocab)).hbm_bytes);
  CHECK(estimate_op(g, embedding_scatter_add(large_vocab)).time_s >
        estimate_op(g, embedding_gather(large_vocab)).time_s);
}

TEST_CASE("softmax, reductions and batch norm are memory bound at large sizes") {
  const GpuSpec g = shipped("h100-sxm5-80gb");
  CHECK(estimate_op(g, softmax(65536, 1024, Precision::bf16)).bound == Bound::memory);
  CHECK(estimate_op(g, softmax(65536, 1024, Precision::bf16, true)).bound == Bound::memory);
  CHECK(estimate_op(g, row_reduction(65536, 4096, Precision::fp32)).bound == Bound::memory);
  CHECK(estimate_op(g, batch_norm(256, 64, 56 * 56, Precision::fp16)).launches == 2);
  CHECK(estimate_op(g, layer_norm(8192, 4096, Precision::bf16, true)).launches == 2);
}

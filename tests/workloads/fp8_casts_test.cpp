// Transformer Engine's fp8 cast costs in training (layer_support's add_gemm_casts, StepPlanner's weight casts),
// each against the bytes TE's kernels move (transformer_engine/pytorch/module/linear.py, TE 1.x):
// fp8_cast_transpose_fused reads bf16 (2 B) and writes fp8 and its transpose (1 + 1 B) per element.
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/fp8_cast.h"
#include "workloads/layers/attention.h"
#include "workloads/layers/linear.h"

using namespace hpcsim;

namespace {

GpuSpec h100() {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("h100-sxm5-80gb", SourceLoc{}), "GPU"),
                        "h100-sxm5-80gb");
}

// Bytes the kernels whose name starts with "fp8_" move at HBM (reads plus writes).
double cast_bytes(const std::vector<Kernel>& ks) {
  double b = 0;
  for (const Kernel& k : ks) {
    if (k.name.rfind("fp8_", 0) != 0) continue;
    for (int i = 0; i < k.work.global_count; ++i) b += k.work.global[i].bytes * static_cast<double>(k.count);
  }
  return b;
}

double all_cast_bytes(const LayerKernels& k) {
  return cast_bytes(k.forward) + cast_bytes(k.backward_data) + cast_bytes(k.backward_weight);
}

}  // namespace

TEST_CASE("fp8 cast: bytes per element as TE's cast kernels move them") {
  // cast_transpose: 2 (bf16 read) + 1 + 1 (fp8 and its transpose written).
  CHECK(fp8_cast_bytes_per_element({1, Precision::fp8, true, Fp8Scaling::delayed}) == 4.0);
  // cast_to_fp8 alone (a sequence-parallel input before its all-gather): 2 + 1.
  CHECK(fp8_cast_bytes_per_element({1, Precision::fp8, false, Fp8Scaling::delayed}) == 3.0);
  // Current scaling reads the tensor for its amax first: + 2.
  CHECK(fp8_cast_bytes_per_element({1, Precision::fp8, true, Fp8Scaling::current}) == 6.0);
  // MXFP8: rowwise and columnwise copies, each with one E8M0 scale per 32 elements, written by the cast.
  CHECK(fp8_cast_bytes_per_element({1, Precision::mxfp8, true, Fp8Scaling::current}) == Approx(2 + 2 * (1 + 1.0 / 32)));
  const std::vector<Kernel> ks = fp8_cast({1e6, Precision::fp8, true, Fp8Scaling::current});
  REQUIRE(ks.size() == 2);
  CHECK(cast_bytes(ks) == Approx(6e6));
  CHECK_FALSE(ks[1].work.framework_pointwise);  // TE's own kernel: the copy bandwidth, not a framework op
  CHECK(fp8_transpose(1e6, Precision::fp8).name == "fp8_transpose");
}

TEST_CASE("fp8 training: a dense layer casts its input and its output gradient, 4 B per element each") {
  const GpuSpec gpu = h100();
  // 8 x 1024 tokens, 4096 -> 16384 features (a GPT fc1), column-parallel, no tensor parallelism.
  const Linear fc1(16384, true, false, TensorSplit::column);
  const Shapes in = {{1024, 4096}};
  LayerRun run;
  run.batch = 8;
  run.precision = Precision::fp8;
  run.gemm_casts = true;
  const double rows = 8 * 1024;
  const LayerKernels k = fc1.kernels(gpu, in, run);
  CHECK(cast_bytes(k.forward) == Approx(rows * 4096 * 4));            // input: cast_transpose
  CHECK(cast_bytes(k.backward_weight) == Approx(rows * 16384 * 4));   // output gradient: cast_transpose (+ bias grad)
  CHECK(cast_bytes(k.backward_data) == 0);
  // The forward's first kernel is the cast, then the GEMM.
  REQUIRE(k.forward.size() >= 2);
  CHECK(k.forward[0].name == "fp8_cast_transpose");

  // Inference (no gemm_casts) and bf16 training: none.
  LayerRun inference = run;
  inference.gemm_casts = false;
  CHECK(all_cast_bytes(fc1.kernels(gpu, in, inference)) == 0);
  LayerRun bf16 = run;
  bf16.precision = Precision::bf16;
  CHECK(all_cast_bytes(fc1.kernels(gpu, in, bf16)) == 0);

  // Sequence parallelism over tp = 4: the column-parallel input is cast on this rank's tokens (2 + 1 B) and
  // its gathered fp8 copy transposed in backward (1 + 1 B).
  LayerRun sp = run;
  sp.tp = 4;
  sp.sequence_shards = 4;
  const LayerKernels ks = fc1.kernels(gpu, in, sp);
  CHECK(cast_bytes(ks.forward) == Approx(rows / 4 * 4096 * 3));
  CHECK(cast_bytes(ks.backward_weight) == Approx(rows * 4096 * 2 + rows * (16384 / 4) * 4));

  // Fed by a norm (TE's LayerNormLinear): the norm writes fp8, and backward transposes it (1 + 1 B).
  LayerRun ln = run;
  ln.input_from_norm = true;
  const LayerKernels kl = fc1.kernels(gpu, in, ln);
  CHECK(cast_bytes(kl.forward) == 0);
  CHECK(cast_bytes(kl.backward_weight) == Approx(rows * 4096 * 2 + rows * 16384 * 4));
}

TEST_CASE("fp8 training: self-attention casts the QKV and output projections' inputs and gradients") {
  const GpuSpec gpu = h100();
  const Attention attention(AttentionConfig{.heads = 32, .causal = true});
  const Shapes in = {{2048, 4096}};
  LayerRun run;
  run.batch = 1;
  run.precision = Precision::fp8;
  run.gemm_casts = true;
  const double rows = 2048, h = 4096;
  const LayerKernels k = attention.kernels(gpu, in, run);
  // Forward: QKV input (h) and the output projection's input (h), 4 B each.
  CHECK(cast_bytes(k.forward) == Approx(rows * (h + h) * 4));
  // Backward: QKV output gradient (3h) and the output projection's (h).
  CHECK(cast_bytes(k.backward_weight) == Approx(rows * (3 * h + h) * 4));
  // The output projection's cast sits right before its GEMM, the last forward kernel.
  REQUIRE(k.forward.size() >= 3);
  CHECK(k.forward[k.forward.size() - 2].name == "fp8_cast_transpose");
  CHECK(k.forward.front().name == "fp8_cast_transpose");
}

#include "workloads/layers/attention.h"

#include <algorithm>

#include "layer_support.h"
#include "models/gpu/ops/attention.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/normalization.h"
#include "workloads/layers/elementwise.h"

namespace hpcsim {

using namespace layer_support;

struct Attention::Dims {
  std::int64_t sq, skv, dq, dkv, heads, kv_heads, hd;
  bool self;
  std::int64_t q_width() const { return heads * hd; }
  std::int64_t kv_width() const { return 2 * kv_heads * hd; }  // keys and values
};

namespace {

// The largest head dim a fused kernel takes: FlashAttention-2 refuses more ("FlashAttention forward only
// supports head dimension at most 256", csrc/flash_attn/flash_api.cpp), and frameworks then run the unfused
// path (PyTorch's scaled_dot_product_attention falls back to its math kernel). Past it the tiles could not
// fit in shared memory on any GPU (head dim 8,192 asked for 1.3 MB per block: an internal error).
constexpr std::int64_t kMaxFusedHeadDim = 256;

// Fused attention (one kernel, scores on chip) where frameworks use it: 16-bit self-attention (FlashAttention)
// and int8 (TensorRT's fused multi-head attention plugins, which MLPerf's BERT engines run), head dims up to
// kMaxFusedHeadDim.
bool flash(const LayerRun& run, bool self, std::int64_t head_dim) {
  const Precision core = between_gemms(run.precision);
  return run.flash_attention && self && head_dim <= kMaxFusedHeadDim &&
         (core == Precision::fp16 || core == Precision::bf16 || core == Precision::int8);
}

Kernel batched(const GpuSpec& gpu, const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k,
               std::int64_t batch, Precision p) {
  Kernel out = gemm(gpu, {m, n, k, batch, p});
  out.name = name + "_" + out.name;
  return out;
}

}  // namespace

Attention::Attention(AttentionConfig config) : c_(config) {
  if (c_.kv_heads == 0) c_.kv_heads = c_.heads;
  if (c_.heads < 1 || c_.kv_heads < 1 || c_.head_dim < 0) {
    throw std::invalid_argument("attention: heads and kv_heads must be >= 1");
  }
  if (!(c_.dropout >= 0 && c_.dropout < 1)) throw std::invalid_argument("attention: dropout must be in [0, 1)");
  if (c_.heads % c_.kv_heads != 0) {
    throw std::invalid_argument("attention: heads (" + std::to_string(c_.heads) + ") must be a multiple of kv_heads (" +
                                std::to_string(c_.kv_heads) + ")");
  }
}

Attention::Dims Attention::dims(const Shapes& in, int tp) const {
  if (in.size() != 1 && in.size() != 2) {
    throw ShapeError("takes one input (self-attention) or two (queries, memory), got " + std::to_string(in.size()));
  }
  for (const Shape& s : in) {
    if (s.size() != 2 || s[0] < 1 || s[1] < 1) throw ShapeError("expects sequences [steps, dim], got " + to_string(s));
  }
  const Shape& q = in[0];
  const Shape& kv = in.back();
  if (c_.head_dim == 0 && q[1] % c_.heads != 0) {
    throw ShapeError("model dim " + std::to_string(q[1]) + " is not a multiple of " + std::to_string(c_.heads) + " heads");
  }
  if (c_.causal && q[0] != kv[0]) throw ShapeError("causal attention needs as many queries as keys");
  const std::int64_t hd = c_.head_dim > 0 ? c_.head_dim : q[1] / c_.heads;
  // Each tensor-parallel GPU computes heads / tp heads; key/value heads fewer than tp are replicated.
  const std::int64_t heads = (c_.heads + tp - 1) / tp, kv_heads = std::max<std::int64_t>(1, (c_.kv_heads + tp - 1) / tp);
  return {q[0], kv[0], q[1], kv[1], heads, kv_heads, hd, in.size() == 1};
}

std::int64_t Attention::params_per_rank(const Shapes& in, int tp) const {
  const Dims d = dims(in, tp);
  const std::int64_t weights = capped_product({d.dq, d.q_width()}) + capped_product({d.dkv, d.kv_width()}) +
                              capped_product({d.q_width(), d.dq});
  return weights + (c_.bias ? d.q_width() + d.kv_width() + d.dq : 0);
}

TensorParallelTraffic Attention::tp_traffic(const Shapes& in, const LayerRun& run) const {
  const Dims d = dims(in, run.tp);
  if (run.tp <= 1) return {};
  const double b = static_cast<double>(run.batch), e = value_bytes(between_gemms(run.precision));
  const double out = b * static_cast<double>(d.sq * d.dq) * e;
  return {out, out + (d.self ? 0 : b * static_cast<double>(d.skv * d.dkv) * e)};
}

Shape Attention::output_shape(const Shapes& in) const {
  const Dims d = dims(in);
  return {d.sq, d.dq};
}

std::int64_t Attention::params(const Shapes& in) const {
  const Dims d = dims(in);
  const std::int64_t weights = capped_product({d.dq, d.q_width()}) + capped_product({d.dkv, d.kv_width()}) +
                              capped_product({d.q_width(), d.dq});
  return weights + (c_.bias ? d.q_width() + d.kv_width() + d.dq : 0);
}

double Attention::forward_flops(const Shapes& in, const LayerRun& run) const {
  const Dims d = dims(in);
  const double b = static_cast<double>(run.batch);
  const double projections = 2 * b * static_cast<double>(d.sq * d.dq * d.q_width() * 2 + d.skv * d.dkv * d.kv_width());
  // Scores and context (2 products), and ~6 elementwise operations per score for the softmax; a causal
  // mask skips half of the scores.
  const double scores = b * static_cast<double>(d.heads * d.sq * d.skv) * (c_.causal ? 0.5 : 1.0);
  return projections + scores * (4.0 * static_cast<double>(d.hd) + 6);
}

// The core is everything between the projections: selective recomputation keeps q, k, v (the checkpoint's
// inputs) and the context (the output projection keeps it as its input for the weight gradient), and drops
// what the core alone keeps: the probabilities, the dropout mask and the dropped probabilities unfused (5
// a s^2 b bytes in 16 bit, Korthikanti et al. 2022, eq. 1 -> eq. 2), the fp32 log-sum-exp per query row
// under flash attention. Its forward kernels are the layer's minus the projections (the first one or two
// and the last).
CoreRecompute Attention::core_recompute(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  const Dims d = dims(in, run.tp);
  const double e = value_bytes(between_gemms(run.precision));
  const double scores = static_cast<double>(run.batch) * static_cast<double>(d.heads * d.sq);
  const double probabilities = scores * static_cast<double>(d.skv);
  CoreRecompute r;
  r.activation_bytes = flash(run, d.self, d.hd) ? scores * 4
                                                : probabilities * e + (c_.dropout > 0 ? probabilities * (1 + e) : 0);
  const std::vector<Kernel> forward = kernels(gpu, in, run).forward;
  const std::size_t projections_in_front = d.self ? 1 : 2;
  r.forward.assign(forward.begin() + static_cast<std::ptrdiff_t>(projections_in_front), forward.end() - 1);
  const Dims whole = dims(in);
  const double whole_scores = static_cast<double>(run.batch) * static_cast<double>(whole.heads * whole.sq * whole.skv) *
                              (c_.causal ? 0.5 : 1.0);
  r.forward_flops = whole_scores * (4.0 * static_cast<double>(whole.hd) + 6);
  return r;
}

double Attention::activation_bytes(const Shapes& in, const LayerRun& run) const {
  const Dims d = dims(in, run.tp);
  // Projection inputs are kept in the GEMMs' precision (fp8 keeps its cast copies); q, k, v and the
  // context in the core's.
  const double b = static_cast<double>(run.batch), e = value_bytes(between_gemms(run.precision));
  // Under sequence parallelism the projections' input is kept as this rank's share of the sequence.
  double bytes = b * static_cast<double>(d.sq * d.dq + (d.self ? 0 : d.skv * d.dkv)) * value_bytes(run.precision) /
                 run.sequence_shards;
  bytes += b * static_cast<double>(d.sq * d.q_width() * 2 + d.skv * d.kv_width()) * e;
  const double scores = b * static_cast<double>(d.heads * d.sq);
  // Flash attention keeps one log-sum-exp per query row (fp32); the unfused path keeps the probabilities,
  // and with dropout also the mask (a byte each) and the dropped probabilities the context product read.
  const double probabilities = scores * static_cast<double>(d.skv);
  if (flash(run, d.self, d.hd)) {
    bytes += scores * 4;
  } else {
    bytes += probabilities * e + (c_.dropout > 0 ? probabilities * (1 + e) : 0);
  }
  return bytes;
}

LayerKernels Attention::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  const Dims d = dims(in, run.tp);
  const Precision p = run.precision, core = between_gemms(p);  // projections; scores, softmax and context
  const std::int64_t b = run.batch, bh = b * d.heads, rows_q = b * d.sq, rows_kv = b * d.skv;
  const bool fused = flash(run, d.self, d.hd);
  LayerKernels k;

  // Projections: one fused QKV GEMM for self-attention, separate Q and KV GEMMs for cross-attention.
  if (d.self) {
    k.forward.push_back(batched(gpu, "qkv", rows_q, d.q_width() + d.kv_width(), d.dq, 1, p));
    k.backward_data.push_back(batched(gpu, "qkv_dx", rows_q, d.dq, d.q_width() + d.kv_width(), 1, p));
    k.backward_weight.push_back(batched(gpu, "qkv_dw", d.dq, d.q_width() + d.kv_width(), rows_q, 1, p));
  } else {
    k.forward.push_back(batched(gpu, "q", rows_q, d.q_width(), d.dq, 1, p));
    k.forward.push_back(batched(gpu, "kv", rows_kv, d.kv_width(), d.dkv, 1, p));
    k.backward_data.push_back(batched(gpu, "q_dx", rows_q, d.dq, d.q_width(), 1, p));
    k.backward_data.push_back(batched(gpu, "kv_dx", rows_kv, d.dkv, d.kv_width(), 1, p));
    k.backward_weight.push_back(batched(gpu, "q_dw", d.dq, d.q_width(), rows_q, 1, p));
    k.backward_weight.push_back(batched(gpu, "kv_dw", d.dkv, d.kv_width(), rows_kv, 1, p));
  }

  // Scores, softmax, probability dropout (unfused: its own pass before the context product) and context.
  const double score_elements = static_cast<double>(bh * d.sq * d.skv);
  const LayerKernels probability_dropout =
      c_.dropout > 0 && !fused ? dropout_kernels(score_elements, value_bytes(core)) : LayerKernels{};
  if (d.self) {
    for (const Kernel& kernel : attention(gpu, {b, d.heads, d.sq, d.hd, c_.causal, core}, fused)) k.forward.push_back(kernel);
  } else {
    k.forward.push_back(batched(gpu, "scores", d.sq, d.skv, d.hd, bh, core));
    for (const Kernel& kernel : softmax(bh * d.sq, d.skv, core)) k.forward.push_back(kernel);
    k.forward.push_back(batched(gpu, "context", d.sq, d.hd, d.skv, bh, core));
  }
  k.forward.insert(k.forward.end() - 1, probability_dropout.forward.begin(), probability_dropout.forward.end());
  // Op by op (e.g. BERT's modeling.py in eager PyTorch), the scores are scaled and masked by passes of their
  // own before the softmax, the scaling differentiated by another, and the heads' context merged back into
  // one [tokens, width] tensor by a copy each way; fused attention, or a fusing compiler, folds them away.
  const bool separate_score_ops = !fused && run.op_by_op;
  const double context_elements = static_cast<double>(rows_q * d.q_width());
  if (separate_score_ops) {
    const auto after_scores = k.forward.begin() + (d.self ? 2 : 3);  // the projections, then the scores
    k.forward.insert(after_scores, {pointwise("attention_scale", score_elements, 1, 1, 1, core),
                                    pointwise("attention_mask", score_elements, 1, 1, 1, core)});
    k.forward.push_back(pointwise("merge_heads_copy", context_elements, 0, 1, 1, core));
  }
  // Backward of the core: flash attention's one fused kernel (scores recomputed on chip), or four batched
  // products (dV, dP, dQ, dK) around the softmax gradient through HBM; the unfused path does not skip
  // the masked half of a causal score matrix.
  if (fused) {
    k.backward_data.push_back(attention_backward_fused(gpu, {b, d.heads, d.sq, d.hd, c_.causal, core}));
  } else {
    k.backward_data.push_back(batched(gpu, "dv", d.skv, d.hd, d.sq, bh, core));
    k.backward_data.push_back(batched(gpu, "dp", d.sq, d.skv, d.hd, bh, core));
    for (const Kernel& kernel : probability_dropout.backward_data) k.backward_data.push_back(kernel);
    for (const Kernel& kernel : softmax(bh * d.sq, d.skv, core, true)) k.backward_data.push_back(kernel);
    if (separate_score_ops) k.backward_data.push_back(pointwise("attention_scale_backward", score_elements, 1, 1, 1, core));
    k.backward_data.push_back(batched(gpu, "dq", d.sq, d.hd, d.skv, bh, core));
    k.backward_data.push_back(batched(gpu, "dk", d.skv, d.hd, d.sq, bh, core));
  }

  // Output projection.
  k.forward.push_back(batched(gpu, "out", rows_q, d.dq, d.q_width(), 1, p));
  k.backward_data.push_back(batched(gpu, "out_dx", rows_q, d.q_width(), d.dq, 1, p));
  if (separate_score_ops) k.backward_data.push_back(pointwise("merge_heads_copy_backward", context_elements, 0, 1, 1, core));
  k.backward_weight.push_back(batched(gpu, "out_dw", d.q_width(), d.dq, rows_q, 1, p));
  if (costs_gemm_casts(run)) {
    // Transformer Engine's casts (add_gemm_casts; bias gradients inside them): the output projection's input
    // before its GEMM (the last forward kernel), then the input projections' before everything.
    const auto dbl = [](std::int64_t v) { return static_cast<double>(v); };
    add_gemm_casts(k, k.forward.size() - 1, dbl(rows_q), dbl(d.q_width()), dbl(d.dq), false, run);
    if (d.self) {
      add_gemm_casts(k, 0, dbl(rows_q), dbl(d.dq), dbl(d.q_width() + d.kv_width()), true, run);
    } else {
      add_gemm_casts(k, 0, dbl(rows_kv), dbl(d.dkv), dbl(d.kv_width()), true, run);
      add_gemm_casts(k, 0, dbl(rows_q), dbl(d.dq), dbl(d.q_width()), true, run);
    }
  } else if (c_.bias) {
    k.backward_weight.push_back(row_reduction(d.q_width() + d.kv_width(), rows_q, core)[0]);
    k.backward_weight.push_back(row_reduction(d.dq, rows_q, core)[0]);
  }
  return k;
}

}  // namespace hpcsim

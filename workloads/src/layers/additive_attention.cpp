#include "workloads/layers/additive_attention.h"

#include "layer_support.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/normalization.h"

namespace hpcsim {

using namespace layer_support;

namespace {

struct Dims {
  std::int64_t tq, dq, tk, dk;
};

Dims dims_of(const Shapes& in) {
  if (in.size() != 2) throw ShapeError("takes two inputs (queries, keys), got " + std::to_string(in.size()));
  for (const Shape& s : in) {
    if (s.size() != 2 || s[0] < 1 || s[1] < 1) throw ShapeError("expects sequences [steps, dim], got " + to_string(s));
  }
  return {in[0][0], in[0][1], in[1][0], in[1][1]};
}

// One pass over the [batch, Tq, Tk, units] tensor with the given streams (bytes per element of it).
Kernel pairwise(const char* name, double elements, double flops, std::vector<ElementStream> streams) {
  return elementwise_kernel(name, elements, flops, streams);
}

}  // namespace

AdditiveAttention::AdditiveAttention(std::int64_t units, bool stepwise) : units_(units), stepwise_(stepwise) {
  if (units < 1) throw std::invalid_argument("additive_attention: units must be >= 1");
}

Shape AdditiveAttention::output_shape(const Shapes& in) const {
  const Dims d = dims_of(in);
  return {d.tq, d.dk};
}

std::int64_t AdditiveAttention::params(const Shapes& in) const {
  const Dims d = dims_of(in);
  // Wq, Wk (no bias), the score vector v, the normalization bias b and scalar g.
  return capped_product({d.dq, units_}) + capped_product({d.dk, units_}) + 2 * units_ + 1;
}

double AdditiveAttention::forward_flops(const Shapes& in, const LayerRun& run) const {
  const Dims d = dims_of(in);
  const double b = static_cast<double>(run.batch), n = static_cast<double>(units_);
  const double pairs = b * static_cast<double>(d.tq * d.tk);
  const double projections = 2 * b * n * static_cast<double>(d.tq * d.dq + d.tk * d.dk);
  // Per pair and unit: add, bias, tanh, multiply by v and sum; per pair a softmax; then the context.
  return projections + pairs * (5 * n + 5) + 2 * pairs * static_cast<double>(d.dk);
}

double AdditiveAttention::activation_bytes(const Shapes& in, const LayerRun& run) const {
  const Dims d = dims_of(in);
  const double b = static_cast<double>(run.batch), e = value_bytes(run.precision);
  const double pairs = b * static_cast<double>(d.tq * d.tk);
  // The inputs, both projections, the tanh tensor and the attention weights.
  return e * (b * static_cast<double>(d.tq * d.dq + d.tk * d.dk) + b * static_cast<double>((d.tq + d.tk) * units_) +
              pairs * static_cast<double>(units_) + pairs);
}

LayerKernels AdditiveAttention::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  if (!stepwise_) return kernels_for(gpu, in, run, 0);
  // One step's queries at a time, repeated for every step; the keys' projection and its gradients once.
  const Dims d = dims_of(in);
  LayerKernels step = kernels_for(gpu, in, run, 1);
  const LayerKernels whole = kernels_for(gpu, in, run, 0);
  for (std::vector<Kernel>* list : {&step.forward, &step.backward_data, &step.backward_weight}) {
    for (Kernel& k : *list) k.count *= d.tq;
  }
  step.forward[1] = whole.forward[1];                              // Wk k
  step.backward_data.back() = whole.backward_data.back();          // dk += dk' Wk^T
  step.backward_weight[1] = whole.backward_weight[1];              // dWk
  return step;
}

LayerKernels AdditiveAttention::kernels_for(const GpuSpec& gpu, const Shapes& in, const LayerRun& run,
                                            std::int64_t query_steps) const {
  Dims d = dims_of(in);
  if (query_steps > 0) d.tq = query_steps;
  const Precision p = run.precision;
  const double e = value_bytes(p), n = static_cast<double>(units_);
  const std::int64_t b = run.batch;
  const double big = static_cast<double>(b * d.tq * d.tk) * n;  // the [batch, Tq, Tk, units] tensor
  const double tq = static_cast<double>(d.tq), tk = static_cast<double>(d.tk);
  LayerKernels k;
  k.forward.push_back(gemm(gpu, {b * d.tq, units_, d.dq, 1, p}));  // Wq q
  k.forward.push_back(gemm(gpu, {b * d.tk, units_, d.dk, 1, p}));  // Wk k
  // tanh(q' + k' + b), the two projections broadcast over the other sequence; kept for backward.
  k.forward.push_back(pairwise("additive_attention_tanh", big, 3,
                               {{e, false, 1 / tk}, {e, false, 1 / tq}, {e, true}}));
  k.forward.push_back(pairwise("additive_attention_score", big, 2, {{e, false}, {e / n, true}}));  // . v
  for (const Kernel& kernel : softmax(b * d.tq, d.tk, p)) k.forward.push_back(kernel);
  k.forward.push_back(gemm(gpu, {d.tq, d.dk, d.tk, b, p}));  // context = P K

  k.backward_data.push_back(gemm(gpu, {d.tq, d.tk, d.dk, b, p}));  // dP = dC K^T
  k.backward_data.push_back(gemm(gpu, {d.tk, d.dk, d.tq, b, p}));  // dK += P^T dC
  for (const Kernel& kernel : softmax(b * d.tq, d.tk, p, true)) k.backward_data.push_back(kernel);
  // d(sum) = dS v (1 - tanh^2): reads the tanh tensor, writes the gradient of the sum.
  k.backward_data.push_back(pairwise("additive_attention_tanh_backward", big, 4,
                                     {{e, false}, {e / n, false}, {e, true}}));
  // dq' and dk': the sum's gradient reduced over the keys and over the queries.
  k.backward_data.push_back(pairwise("additive_attention_reduce_keys", big, 1, {{e, false}, {e / tk, true}}));
  k.backward_data.push_back(pairwise("additive_attention_reduce_queries", big, 1, {{e, false}, {e / tq, true}}));
  k.backward_data.push_back(gemm(gpu, {b * d.tq, d.dq, units_, 1, p}));  // dq = dq' Wq^T
  k.backward_data.push_back(gemm(gpu, {b * d.tk, d.dk, units_, 1, p}));  // dk += dk' Wk^T
  k.backward_weight.push_back(gemm(gpu, {d.dq, units_, b * d.tq, 1, p}));  // dWq
  k.backward_weight.push_back(gemm(gpu, {d.dk, units_, b * d.tk, 1, p}));  // dWk
  // dv and db: reductions of the tanh tensor against the score gradient.
  k.backward_weight.push_back(pairwise("additive_attention_dv", big, 2, {{e, false}, {e / n, false}}));
  return k;
}

}  // namespace hpcsim

#pragma once
// Additive (Bahdanau) attention, normalized as GNMT uses it: score(q, k) = g * v/|v| . tanh(Wq q + Wk k + b),
// softmax over the keys, context = sum of p * k. Queries [Tq, dq] and keys [Tk, dk] -> context [Tq, dk].
// Unlike dot-product attention it materializes a [Tq, Tk, units] tensor per sample, forward and backward.
#include "workloads/layers/layer.h"

namespace hpcsim {

class AdditiveAttention : public Layer {
 public:
  // stepwise: computed one query step at a time inside a decoder loop (TensorFlow's AttentionWrapper under
  // dynamic_decode): every query-side kernel runs once per step over that step's queries; the keys'
  // projection runs once.
  explicit AdditiveAttention(std::int64_t units, bool stepwise = false);
  std::string type() const override { return "additive_attention"; }
  LayerTraits traits() const override { return {.recurrent = true, .cpu_op_class = CpuOpClass::gemm}; }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  LayerKernels kernels_for(const GpuSpec& gpu, const Shapes& in, const LayerRun& run, std::int64_t query_steps) const;
  std::int64_t units_;
  bool stepwise_ = false;
};

}  // namespace hpcsim

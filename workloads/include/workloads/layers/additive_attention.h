#pragma once
// Additive (Bahdanau) attention, normalized as GNMT uses it: score(q, k) = g * v/|v| . tanh(Wq q + Wk k + b),
// softmax over the keys, context = sum of p * k. Queries [Tq, dq] and keys [Tk, dk] -> context [Tq, dk].
// Unlike dot-product attention it materializes a [Tq, Tk, units] tensor per sample, forward and backward.
#include "workloads/layers/layer.h"

namespace hpcsim {

class AdditiveAttention : public Layer {
 public:
  explicit AdditiveAttention(std::int64_t units);
  std::string type() const override { return "additive_attention"; }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  std::int64_t units_;
};

}  // namespace hpcsim

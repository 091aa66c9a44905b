#pragma once
// Batch norm (per channel of [C, ...]), layer norm and RMSNorm (over the last dimension).
#include "workloads/layers/layer.h"

namespace hpcsim {

class BatchNorm : public Layer {
 public:
  std::string type() const override { return "batch_norm"; }
  LayerTraits traits() const override {
    return {.normalization = true, .batch_statistics = true, .keeps_input = true};
  }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;  // gamma and beta per channel
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

// rms = true: RMSNorm (Llama), a scale and no bias; costed with the layer-norm kernels (one statistic
// fewer, a slight overestimate).
class LayerNorm : public Layer {
 public:
  explicit LayerNorm(bool rms = false) : rms_(rms) {}
  std::string type() const override { return rms_ ? "rms_norm" : "layer_norm"; }
  LayerTraits traits() const override { return {.normalization = true, .keeps_input = true}; }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  bool rms_;
};

}  // namespace hpcsim

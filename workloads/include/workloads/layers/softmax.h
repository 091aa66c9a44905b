#pragma once
// Softmax over the last dimension, and the cross-entropy loss (softmax + negative log-likelihood fused,
// as frameworks do; one class means a sigmoid with binary cross-entropy).
#include "workloads/layers/layer.h"

namespace hpcsim {

class Softmax : public Layer {
 public:
  std::string type() const override { return "softmax"; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

// [..., classes] logits -> [1] loss per sample.
class CrossEntropyLoss : public Layer {
 public:
  std::string type() const override { return "cross_entropy"; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

}  // namespace hpcsim

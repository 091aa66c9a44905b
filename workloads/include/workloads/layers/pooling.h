#pragma once
// Max and average pooling over [channels, height, width]; global pooling reduces each channel to one value.
#include "workloads/layers/layer.h"

namespace hpcsim {

enum class PoolMode { max, avg };

struct PoolConfig {
  PoolMode mode = PoolMode::max;
  bool global = false;  // output [channels]
  int kernel_h = 2, kernel_w = 2;
  int stride_h = 2, stride_w = 2;
  int pad_h = 0, pad_w = 0;
  bool same = false;
  bool ceil_mode = false;  // PyTorch ceil_mode: a last partial window counts
};

class Pool2d : public Layer {
 public:
  explicit Pool2d(PoolConfig config);
  std::string type() const override;
  LayerTraits traits() const override;
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  PoolConfig c_;
};

}  // namespace hpcsim

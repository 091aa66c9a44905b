#pragma once
// 2-D convolution on [channels, height, width] (and its transpose, for generators).
#include "workloads/layers/layer.h"

namespace hpcsim {

struct Conv2dConfig {
  std::int64_t filters = 1;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_h = 0, pad_w = 0;
  bool same = false;  // TensorFlow "same" padding: output = ceil(input / stride); pads are then ignored
  int groups = 1;
  int dilation = 1;
  bool bias = true;
};

class Conv2d : public Layer {
 public:
  explicit Conv2d(Conv2dConfig config);
  std::string type() const override { return "conv2d"; }
  LayerTraits traits() const override {
    return {.convolution = true, .keeps_input = true, .cpu_op_class = CpuOpClass::conv};
  }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  Conv2dConfig c_;
};

// Transposed convolution (fractionally strided): output = (input - 1) * stride - 2 * pad + kernel.
// Its forward pass is a convolution's backward-data pass and the other way round.
class Conv2dTranspose : public Layer {
 public:
  explicit Conv2dTranspose(Conv2dConfig config);  // groups, dilation and `same` are not supported
  std::string type() const override { return "conv2d_transpose"; }
  LayerTraits traits() const override {
    return {.convolution = true, .keeps_input = true, .cpu_op_class = CpuOpClass::conv};
  }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  Conv2dConfig c_;
};

}  // namespace hpcsim

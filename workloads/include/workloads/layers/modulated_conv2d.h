#pragma once
// StyleGAN2's modulated convolution (Karras et al. 2020, "Analyzing and Improving the Image Quality of
// StyleGAN", section 2.2): inputs {image [C, H, W], latent w [w_dim]}. An affine layer maps w to one style
// per input channel; the input is scaled by the styles, convolved with the shared weight, scaled by the
// demodulation coefficients, then noise and bias are added. This is the non-fused form StyleGAN2-ADA
// trains with, so the convolution is an ordinary Conv2d (or, for the 2x upsampling layers, a stride-2
// Conv2dTranspose followed by a 4x4 FIR blur) and reuses their kernels.
#include "workloads/layers/layer.h"

namespace hpcsim {

struct ModulatedConvConfig {
  std::int64_t filters = 1;
  int kernel = 3;
  bool up = false;          // 2x upsampling ([C, H, W] -> [filters, 2H, 2W])
  bool demodulate = true;   // false for toRGB
  bool noise = true;        // per-pixel noise with one learned strength (false for toRGB)
};

class ModulatedConv2d : public Layer {
 public:
  explicit ModulatedConv2d(ModulatedConvConfig config);
  std::string type() const override { return "modulated_conv2d"; }
  // Parameters: the affine's weight and bias, the weight, the bias and the noise strength; buffers: the
  // constant noise and the resampling filter.
  LayerTraits traits() const override {
    return {.convolution = true, .parameter_tensors = 5, .buffer_tensors = 2, .cpu_op_class = CpuOpClass::conv};
  }
  Shape output_shape(const Shapes& in) const override;
  // affine (w_dim x C + C) + weight (filters x C x k x k) + bias (filters) + noise strength (1, if noise)
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  ModulatedConvConfig c_;
};

}  // namespace hpcsim

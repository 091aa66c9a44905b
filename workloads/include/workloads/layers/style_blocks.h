#pragma once
// The small StyleGAN2 pieces around the modulated convolutions (Karras et al. 2020): the learned 4x4
// input of the synthesis network, the 2x upsampling of the skip image, and the discriminator's
// minibatch standard deviation channel.
#include "workloads/layers/layer.h"

namespace hpcsim {

// A learned [C, H, W] tensor repeated for every sample; its input (any shape) only sets the batch.
class LearnedConstant : public Layer {
 public:
  explicit LearnedConstant(Shape shape);
  std::string type() const override { return "learned_constant"; }
  LayerTraits traits() const override { return {.parameter_tensors = 1}; }  // no bias
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  Shape shape_;
};

// [C, H, W] -> [C, 2H, 2W] with a 4x4 FIR filter (zero insertion, then blur); no parameters.
class Upsample2d : public Layer {
 public:
  std::string type() const override { return "upsample2d"; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

// The 4x4 FIR low-pass ([1, 3, 3, 1] outer product, upfirdn2d) StyleGAN2 applies before a downsampling
// convolution: down 1 keeps [C, H, W] (the blur before a stride-2 3x3 convolution), down 2 gives
// [C, H/2, W/2] (before a 1x1 one); no parameters.
class Blur2d : public Layer {
 public:
  explicit Blur2d(int down = 1);
  std::string type() const override { return "blur2d"; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  int down_;
};

// [C, H, W] -> [C + 1, H, W]: appends the standard deviation across a group of samples, averaged over
// features and pixels, as one more channel.
class MinibatchStddev : public Layer {
 public:
  std::string type() const override { return "minibatch_stddev"; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

}  // namespace hpcsim

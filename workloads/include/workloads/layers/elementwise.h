#pragma once
// Parameter-free elementwise layers: activations, dropout, residual add.
#include "workloads/layers/layer.h"

namespace hpcsim {

// swiglu: the input's last dimension holds [gate, up]; output silu(gate) * up (half the width).
enum class ActivationKind { relu, leaky_relu, gelu, silu, swiglu, tanh, sigmoid };

class Activation : public Layer {
 public:
  explicit Activation(ActivationKind kind) : kind_(kind) {}
  std::string type() const override;
  LayerTraits traits() const override;
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  ActivationKind kind_;
};

// Inverted dropout over `elements` values of `value_bytes` each: forward writes the values and a one-byte
// mask (kept for backward), backward reads the gradient and the mask.
LayerKernels dropout_kernels(double elements, double value_bytes);

// Keeps a one-byte mask per element for backward.
class Dropout : public Layer {
 public:
  explicit Dropout(double rate);  // 0 <= rate < 1
  std::string type() const override { return "dropout"; }
  LayerTraits traits() const override {
    return {.elementwise_forward = true, .elementwise_backward = true, .eval_identity = true};
  }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  double rate_;
};

// Sum of two or more tensors of one shape (residual connections); backward passes the gradient through.
class Add : public Layer {
 public:
  std::string type() const override { return "add"; }
  LayerTraits traits() const override { return {.elementwise_forward = true, .passes_gradient = true}; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

}  // namespace hpcsim

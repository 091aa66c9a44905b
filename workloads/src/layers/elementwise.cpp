#include "workloads/layers/elementwise.h"

#include "layer_support.h"

namespace hpcsim {

using namespace layer_support;

namespace {

// FLOPs per output value, counting an exponential or tanh as about eight (a polynomial with a range
// reduction), as the recurrent op model does.
double flops_per_value(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::relu: return 1;
    case ActivationKind::leaky_relu: return 2;
    case ActivationKind::gelu: return 14;     // tanh approximation: x * (1 + tanh(c (x + 0.044715 x^3))) / 2
    case ActivationKind::silu: return 10;     // x * sigmoid(x)
    case ActivationKind::swiglu: return 11;   // silu(gate) * up
    case ActivationKind::tanh: return 8;
    case ActivationKind::sigmoid: return 10;
  }
  return 1;
}

}  // namespace

std::string Activation::type() const {
  switch (kind_) {
    case ActivationKind::relu: return "relu";
    case ActivationKind::leaky_relu: return "leaky_relu";
    case ActivationKind::gelu: return "gelu";
    case ActivationKind::silu: return "silu";
    case ActivationKind::swiglu: return "swiglu";
    case ActivationKind::tanh: return "tanh";
    case ActivationKind::sigmoid: return "sigmoid";
  }
  return "activation";
}

LayerTraits Activation::traits() const {
  // relu (threshold_backward on the result), tanh and sigmoid differentiate from their output; the others
  // from their input.
  const bool from_output = kind_ == ActivationKind::relu || kind_ == ActivationKind::tanh || kind_ == ActivationKind::sigmoid;
  return {.elementwise_forward = true,
          .elementwise_backward = true,
          .input_parts = kind_ == ActivationKind::swiglu ? 2 : 1,
          .saves = from_output ? LayerTraits::Saves::output : LayerTraits::Saves::input,
          .in_place = kind_ == ActivationKind::relu};
}

Shape Activation::output_shape(const Shapes& in) const {
  Shape out = single_input(in, 0, "");
  if (kind_ == ActivationKind::swiglu) {
    if (out.empty() || out.back() % 2 != 0) {
      throw ShapeError("swiglu needs an even last dimension ([gate, up]), got " + to_string(out));
    }
    out.back() /= 2;
  }
  return out;
}

double Activation::forward_flops(const Shapes& in, const LayerRun& run) const {
  return flops_per_value(kind_) * batch_elements(output_shape(in), run);
}

double Activation::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_bytes(in[0], run);  // the input (ReLU's output would do as well: same size)
}

LayerKernels Activation::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const double out = batch_elements(output_shape(in), run);
  const int inputs = kind_ == ActivationKind::swiglu ? 2 : 1;  // gate and up halves
  LayerKernels k;
  k.forward = {pointwise(type(), out, flops_per_value(kind_), inputs, 1, run.precision)};
  k.backward_data = {pointwise(type() + "_backward", out, flops_per_value(kind_), inputs + 1, inputs, run.precision)};
  return k;
}

Dropout::Dropout(double rate) : rate_(rate) {
  if (!(rate >= 0 && rate < 1)) throw std::invalid_argument("dropout: rate must be in [0, 1)");
}

Shape Dropout::output_shape(const Shapes& in) const { return single_input(in, 0, ""); }

double Dropout::forward_flops(const Shapes& in, const LayerRun& run) const {
  return rate_ > 0 ? 2 * batch_elements(output_shape(in), run) : 0;
}

double Dropout::activation_bytes(const Shapes& in, const LayerRun& run) const {
  return rate_ > 0 ? batch_elements(output_shape(in), run) : 0;  // one byte of mask per value
}

LayerKernels dropout_kernels(double elements, double value_bytes) {
  const double e = value_bytes;
  LayerKernels k;
  k.forward = {elementwise_kernel("dropout", elements, 4, {{e, false}, {e, true}, {1, true}})};
  k.backward_data = {elementwise_kernel("dropout_backward", elements, 1, {{e, false}, {1, false}, {e, true}})};
  return k;
}

LayerKernels Dropout::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  if (rate_ == 0) return {};
  return dropout_kernels(batch_elements(output_shape(in), run), value_bytes(run.precision));
}

Shape Add::output_shape(const Shapes& in) const {
  if (in.size() < 2) throw ShapeError("adds two or more inputs, got " + std::to_string(in.size()));
  for (const Shape& s : in) {
    if (s != in[0]) throw ShapeError("inputs differ in shape: " + to_string(in[0]) + " and " + to_string(s));
  }
  return in[0];
}

double Add::forward_flops(const Shapes& in, const LayerRun& run) const {
  return static_cast<double>(in.size() - 1) * batch_elements(output_shape(in), run);
}

double Add::activation_bytes(const Shapes& in, const LayerRun&) const {
  output_shape(in);
  return 0;
}

LayerKernels Add::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const double n = batch_elements(output_shape(in), run);
  LayerKernels k;
  k.forward = {pointwise("add", n, static_cast<double>(in.size() - 1), static_cast<int>(in.size()), 1, run.precision)};
  return k;  // the gradient reaches every input unchanged: no backward kernel
}

}  // namespace hpcsim

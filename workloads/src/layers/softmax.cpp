#include "workloads/layers/softmax.h"

#include <stdexcept>

#include "layer_support.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/normalization.h"

namespace hpcsim {

using namespace layer_support;

Shape Softmax::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 0, "");
  if (x.empty()) throw ShapeError("expects at least one dimension");
  return x;
}

double Softmax::forward_flops(const Shapes& in, const LayerRun& run) const {
  return 12 * batch_elements(output_shape(in), run);  // max, exp (~8), sum, divide
}

double Softmax::activation_bytes(const Shapes& in, const LayerRun& run) const {
  return batch_bytes(output_shape(in), run);  // the output
}

LayerKernels Softmax::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const Shape x = output_shape(in);
  const std::int64_t rows = leading_elements(x) * run.batch;
  LayerKernels k;
  k.forward = softmax(rows, x.back(), run.precision);
  k.backward_data = softmax(rows, x.back(), run.precision, true);
  return k;
}

namespace {

// Logits narrower than fp32 are cast up for the loss (see the header).
bool upcast(Precision p) { return value_bytes(p) < 4; }

}  // namespace

CrossEntropyLoss::CrossEntropyLoss(double label_smoothing) : smoothing_(label_smoothing) {
  if (!(label_smoothing >= 0 && label_smoothing < 1)) {
    throw std::invalid_argument("cross_entropy: label_smoothing must be in [0, 1)");
  }
}

Shape CrossEntropyLoss::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 0, "");
  if (x.empty()) throw ShapeError("expects logits [..., classes]");
  return {1};
}

double CrossEntropyLoss::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  // Softmax plus the picked log-probability; smoothing adds the sum over the classes.
  return (smoothing_ > 0 ? 14 : 13) * batch_elements(in[0], run);
}

double CrossEntropyLoss::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  // The probabilities (fp32 when cast up), whose difference to the target is the gradient.
  return batch_elements(in[0], run) * (upcast(run.precision) ? 4.0 : value_bytes(run.precision));
}

LayerKernels CrossEntropyLoss::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const std::int64_t rows = leading_elements(in[0]) * run.batch;
  const double n = batch_elements(in[0], run), e = value_bytes(run.precision);
  const bool up = upcast(run.precision);
  const Precision loss_precision = up ? Precision::fp32 : run.precision;
  const double le = value_bytes(loss_precision);
  LayerKernels k;
  if (up) k.forward.push_back(elementwise_kernel("logits_to_fp32", n, 1, {{e, false}, {4, true}}));
  for (const Kernel& kernel : softmax(rows, in[0].back(), loss_precision)) k.forward.push_back(kernel);
  if (smoothing_ > 0) {
    k.forward.push_back(row_reduction(rows, in[0].back(), loss_precision)[0]);  // mean log-probability
    // The gradient reaching the log-softmax: zeros with the picked class scattered in, plus the
    // smoothing term's uniform gradient; then the log-softmax backward (its output and that gradient).
    k.backward_data.push_back(elementwise_kernel("nll_gradient_zeros", n, 0, {{le, true}}));
    k.backward_data.push_back(elementwise_kernel("smoothing_gradient_add", n, 1, {{le, false}, {le, true}}));
    k.backward_data.push_back(
        elementwise_kernel("log_softmax_backward", n, 3, {{le, false}, {le, false}, {le, true}}));
  } else {
    // dlogits = probabilities - one_hot: one elementwise pass.
    k.backward_data.push_back(elementwise_kernel("cross_entropy_backward", n, 1, {{le, false}, {le, true}}));
  }
  if (up) k.backward_data.push_back(elementwise_kernel("logits_grad_to_16bit", n, 1, {{4, false}, {e, true}}));
  return k;
}

}  // namespace hpcsim

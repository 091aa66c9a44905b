#include "workloads/layers/softmax.h"

#include "layer_support.h"
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

Shape CrossEntropyLoss::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 0, "");
  if (x.empty()) throw ShapeError("expects logits [..., classes]");
  return {1};
}

double CrossEntropyLoss::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return 13 * batch_elements(in[0], run);  // softmax plus the picked log-probability
}

double CrossEntropyLoss::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_bytes(in[0], run);  // the probabilities, whose difference to one-hot is the gradient
}

LayerKernels CrossEntropyLoss::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const std::int64_t rows = leading_elements(in[0]) * run.batch;
  const double n = batch_elements(in[0], run);
  LayerKernels k;
  k.forward = softmax(rows, in[0].back(), run.precision);
  // dlogits = probabilities - one_hot: one elementwise pass.
  k.backward_data = {pointwise("cross_entropy_backward", n, 1, 1, 1, run.precision)};
  return k;
}

}  // namespace hpcsim

#include "workloads/layers/normalization.h"

#include "layer_support.h"
#include "models/gpu/ops/normalization.h"

namespace hpcsim {

using namespace layer_support;

Shape BatchNorm::output_shape(const Shapes& in) const { return single_input(in, 0, ""); }

std::int64_t BatchNorm::params(const Shapes& in) const { return 2 * output_shape(in)[0]; }

double BatchNorm::forward_flops(const Shapes& in, const LayerRun& run) const {
  // Mean and variance (3 per value), then scale and shift (2 per value).
  return 5 * batch_elements(output_shape(in), run);
}

double BatchNorm::activation_bytes(const Shapes& in, const LayerRun& run) const {
  return batch_bytes(output_shape(in), run);
}

LayerKernels BatchNorm::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const Shape x = output_shape(in);
  const std::int64_t c = x[0], hw = elements(x) / c;
  LayerKernels k;
  k.forward = batch_norm(run.batch, c, hw, run.precision);
  k.backward_data = batch_norm(run.batch, c, hw, run.precision, true);  // includes dgamma, dbeta
  return k;
}

Shape LayerNorm::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 0, "");
  if (x.empty()) throw ShapeError("expects at least one dimension");
  return x;
}

std::int64_t LayerNorm::params(const Shapes& in) const { return (rms_ ? 1 : 2) * output_shape(in).back(); }

double LayerNorm::forward_flops(const Shapes& in, const LayerRun& run) const {
  return (rms_ ? 4 : 5) * batch_elements(output_shape(in), run);
}

double LayerNorm::activation_bytes(const Shapes& in, const LayerRun& run) const {
  return batch_bytes(output_shape(in), run);
}

LayerKernels LayerNorm::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const Shape x = output_shape(in);
  const std::int64_t rows = leading_elements(x) * run.batch;
  LayerKernels k;
  k.forward = layer_norm(rows, x.back(), run.precision);
  k.backward_data = layer_norm(rows, x.back(), run.precision, true);  // includes the gamma/beta reduction
  return k;
}

}  // namespace hpcsim

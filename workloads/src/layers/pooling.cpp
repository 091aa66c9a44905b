#include "workloads/layers/pooling.h"

#include "layer_support.h"

namespace hpcsim {

using namespace layer_support;

namespace {

std::int64_t pool_out(std::int64_t in, int kernel, int stride, int pad, bool same, bool ceil_mode) {
  if (same) return (in + stride - 1) / stride;
  const std::int64_t span = in + 2 * pad - kernel;
  if (span < 0) return 0;
  std::int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // PyTorch: the last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace

Pool2d::Pool2d(PoolConfig config) : c_(config) {
  if (!c_.global && (c_.kernel_h < 1 || c_.kernel_w < 1 || c_.stride_h < 1 || c_.stride_w < 1 || c_.pad_h < 0 || c_.pad_w < 0)) {
    throw std::invalid_argument("pooling: kernel and stride must be >= 1, padding >= 0");
  }
}

std::string Pool2d::type() const {
  const std::string mode = c_.mode == PoolMode::max ? "max" : "avg";
  return c_.global ? "global_" + mode + "_pool" : mode + "_pool";
}

// Max pooling's backward routes each gradient to the input that won, so it keeps the input (a global max
// pool is counted as its output alone).
LayerTraits Pool2d::traits() const { return {.keeps_input = c_.mode == PoolMode::max && !c_.global}; }

Shape Pool2d::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 3, "[channels, height, width]");
  if (c_.global) return {x[0]};
  const std::int64_t oh = pool_out(x[1], c_.kernel_h, c_.stride_h, c_.pad_h, c_.same, c_.ceil_mode);
  const std::int64_t ow = pool_out(x[2], c_.kernel_w, c_.stride_w, c_.pad_w, c_.same, c_.ceil_mode);
  if (oh < 1 || ow < 1) {
    throw ShapeError("a " + std::to_string(c_.kernel_h) + "x" + std::to_string(c_.kernel_w) +
                     " window does not fit input " + to_string(x));
  }
  return {x[0], oh, ow};
}

double Pool2d::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  // One compare or add per input value a window covers (windows overlap when stride < kernel).
  const Shape out = output_shape(in);
  const double window = c_.global ? static_cast<double>(in[0][1] * in[0][2]) : c_.kernel_h * c_.kernel_w;
  return batch_elements(out, run) * window;
}

double Pool2d::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  // Max pooling keeps its input to route gradients; averaging needs only the shape.
  return c_.mode == PoolMode::max ? batch_bytes(in[0], run) : 0;
}

LayerKernels Pool2d::kernels(const GpuSpec&, const Shapes& in, const LayerRun& run) const {
  const Shape out = output_shape(in);
  const double in_elems = batch_elements(in[0], run), out_elems = batch_elements(out, run);
  const double e = value_bytes(run.precision);
  LayerKernels k;
  // One thread per output reading its windows (each input value once from HBM; overlap hits cache).
  k.forward = {elementwise_kernel(type(), out_elems, forward_flops(in, run) / out_elems,
                                  {{e * in_elems / out_elems, false}, {e, true}})};
  // One thread per input value: the output gradient (and for max, the saved input) in, dx out.
  std::vector<ElementStream> streams = {{e * out_elems / in_elems, false}, {e, true}};
  if (c_.mode == PoolMode::max) streams.push_back({e, false});
  k.backward_data = {elementwise_kernel(type() + "_backward", in_elems, 1, streams)};
  return k;
}

}  // namespace hpcsim

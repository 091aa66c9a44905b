#include "workloads/layers/conv2d.h"

#include <algorithm>

#include "layer_support.h"
#include "models/gpu/ops/conv.h"
#include "models/gpu/ops/elementwise.h"

namespace hpcsim {

using namespace layer_support;

namespace {

std::int64_t conv_out(std::int64_t in, int kernel, int stride, int pad, int dilation, bool same) {
  if (same) return (in + stride - 1) / stride;
  const std::int64_t span = static_cast<std::int64_t>(dilation) * (kernel - 1) + 1;
  return (in + 2 * pad - span) / stride + 1;
}

// The implicit GEMM that computes `out` output pixels from a cin x kh x kw window: the op model takes one
// stride and one pad, so the input it reads is the exact window span (padding and dilation only change
// which pixels are read, not how many multiply-adds there are).
ConvShape cost_shape(std::int64_t n, std::int64_t cin, std::int64_t k, std::int64_t oh, std::int64_t ow,
                     const Conv2dConfig& c, Precision p) {
  if (c.stride_h == c.stride_w && c.pad_h == c.pad_w && c.kernel_h == c.kernel_w && c.dilation == 1 && !c.same &&
      (std::min(oh, ow) - 1) * c.stride_h + c.kernel_h - 2 * c.pad_h >= 1) {
    // The op's own geometry: (h + 2 pad - r) / stride + 1 = oh for the smallest such h.
    return ConvShape{n, cin, (oh - 1) * c.stride_h + c.kernel_h - 2 * c.pad_h, (ow - 1) * c.stride_w + c.kernel_w - 2 * c.pad_w,
                     k, c.kernel_h, c.kernel_w, c.stride_h, c.pad_h, p};
  }
  const int stride = c.stride_h == c.stride_w ? c.stride_h : 1;
  return ConvShape{n, cin, (oh - 1) * stride + c.kernel_h, (ow - 1) * stride + c.kernel_w, k,
                   c.kernel_h, c.kernel_w, stride, 0, p};
}

void check_config(const Conv2dConfig& c) {
  if (c.filters < 1 || c.kernel_h < 1 || c.kernel_w < 1 || c.stride_h < 1 || c.stride_w < 1 || c.pad_h < 0 ||
      c.pad_w < 0 || c.groups < 1 || c.dilation < 1) {
    throw std::invalid_argument("conv2d: filters, kernel, stride, groups and dilation must be >= 1, padding >= 0");
  }
}

std::vector<Kernel> times(Kernel k, std::int64_t count) {
  k.count *= count;
  return {k};
}

}  // namespace

Conv2d::Conv2d(Conv2dConfig config) : c_(config) { check_config(c_); }

Shape Conv2d::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 3, "[channels, height, width]");
  if (x[0] % c_.groups != 0 || c_.filters % c_.groups != 0) {
    throw ShapeError("groups " + std::to_string(c_.groups) + " must divide input channels " + std::to_string(x[0]) +
                     " and filters " + std::to_string(c_.filters));
  }
  const std::int64_t oh = conv_out(x[1], c_.kernel_h, c_.stride_h, c_.pad_h, c_.dilation, c_.same);
  const std::int64_t ow = conv_out(x[2], c_.kernel_w, c_.stride_w, c_.pad_w, c_.dilation, c_.same);
  if (oh < 1 || ow < 1) {
    throw ShapeError("a " + std::to_string(c_.kernel_h) + "x" + std::to_string(c_.kernel_w) +
                     " filter does not fit input " + to_string(x));
  }
  return {c_.filters, oh, ow};
}

std::int64_t Conv2d::params(const Shapes& in) const {
  output_shape(in);
  return capped_product({c_.filters, in[0][0] / c_.groups, c_.kernel_h, c_.kernel_w}) + (c_.bias ? c_.filters : 0);
}

double Conv2d::forward_flops(const Shapes& in, const LayerRun& run) const {
  const Shape out = output_shape(in);
  const double outputs = batch_elements(out, run);
  return outputs * (2.0 * static_cast<double>(in[0][0] / c_.groups * c_.kernel_h * c_.kernel_w) + (c_.bias ? 1 : 0));
}

double Conv2d::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_bytes(in[0], run);  // the input, for the weight gradient
}

LayerKernels Conv2d::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  const Shape out = output_shape(in);
  const ConvShape s = cost_shape(run.batch, in[0][0] / c_.groups, c_.filters / c_.groups, out[1], out[2], c_,
                                 run.precision);
  LayerKernels k;
  // Grouped convolutions run one implicit GEMM per group; ungrouped ones what cuDNN's autotuner picks
  // (Winograd for stride-1 3x3 filters on the vector unit when it is faster). An inference engine built for
  // one batch runs the forward implicit GEMMs (tensor-core convolutions) chosen for that batch.
  const bool autotuned = c_.groups == 1 && c_.dilation == 1;
  auto chosen = [&](ConvPass pass) {
    return autotuned ? conv2d_fastest(gpu, s, pass) : times(conv2d(gpu, s, pass), c_.groups);
  };
  const bool tuned = run.tuned_batch > 0 && gpu.tensor_flops_per_clock_per_sm[static_cast<int>(run.precision)].has_value();
  k.forward = tuned ? times(conv2d_tuned_for(gpu, s, run.tuned_batch), c_.groups) : chosen(ConvPass::forward);
  k.backward_data = chosen(ConvPass::backward_data);
  k.backward_weight = times(conv2d(gpu, s, ConvPass::backward_weight), c_.groups);
  if (c_.bias) {
    for (Kernel& r : row_reduction(c_.filters, run.batch * out[1] * out[2], run.precision)) {
      k.backward_weight.push_back(r);
    }
  }
  if (!run.channels_last && gpu.tensor_flops_per_clock_per_sm[static_cast<int>(run.precision)].has_value()) {
    const double x = batch_elements(in[0], run), y = batch_elements(out, run);
    auto transpose = [&](const char* name, double elements) { return pointwise(name, elements, 0, 1, 1, run.precision); };
    k.forward.push_back(transpose("nchw_to_nhwc_input", x));
    k.forward.push_back(transpose("nhwc_to_nchw_output", y));
    k.backward_data.push_back(transpose("nchw_to_nhwc_output_grad", y));
    k.backward_data.push_back(transpose("nhwc_to_nchw_input_grad", x));
    k.backward_weight.push_back(transpose("nchw_to_nhwc_input", x));
    k.backward_weight.push_back(transpose("nchw_to_nhwc_output_grad", y));
  }
  return k;
}

Conv2dTranspose::Conv2dTranspose(Conv2dConfig config) : c_(config) {
  check_config(c_);
  if (c_.groups != 1 || c_.dilation != 1 || c_.same) {
    throw std::invalid_argument("conv2d_transpose: groups, dilation and same padding are not supported");
  }
}

Shape Conv2dTranspose::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 3, "[channels, height, width]");
  const std::int64_t oh = (x[1] - 1) * c_.stride_h - 2 * c_.pad_h + c_.kernel_h;
  const std::int64_t ow = (x[2] - 1) * c_.stride_w - 2 * c_.pad_w + c_.kernel_w;
  if (oh < 1 || ow < 1) throw ShapeError("padding leaves no output for input " + to_string(x));
  return {c_.filters, oh, ow};
}

std::int64_t Conv2dTranspose::params(const Shapes& in) const {
  output_shape(in);
  return capped_product({in[0][0], c_.filters, c_.kernel_h, c_.kernel_w}) + (c_.bias ? c_.filters : 0);
}

double Conv2dTranspose::forward_flops(const Shapes& in, const LayerRun& run) const {
  const Shape out = output_shape(in);
  return batch_elements(in[0], run) * 2.0 * static_cast<double>(c_.filters * c_.kernel_h * c_.kernel_w) +
         (c_.bias ? batch_elements(out, run) : 0);
}

double Conv2dTranspose::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  return batch_bytes(in[0], run);
}

LayerKernels Conv2dTranspose::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  const Shape out = output_shape(in);
  // The convolution whose backward-data pass this layer's forward pass is: from the output image to the input.
  const int stride = c_.stride_h == c_.stride_w ? c_.stride_h : 1;
  const bool exact = c_.stride_h == c_.stride_w && c_.pad_h == c_.pad_w;
  const ConvShape s = exact ? ConvShape{run.batch, c_.filters, out[1], out[2], in[0][0], c_.kernel_h, c_.kernel_w,
                                        c_.stride_h, c_.pad_h, run.precision}
                            : ConvShape{run.batch, c_.filters, (in[0][1] - 1) * stride + c_.kernel_h,
                                        (in[0][2] - 1) * stride + c_.kernel_w, in[0][0], c_.kernel_h, c_.kernel_w,
                                        stride, 0, run.precision};
  LayerKernels k;
  k.forward = {conv2d(gpu, s, ConvPass::backward_data)};
  k.backward_data = {conv2d(gpu, s, ConvPass::forward)};
  k.backward_weight = {conv2d(gpu, s, ConvPass::backward_weight)};
  if (c_.bias) k.backward_weight.push_back(row_reduction(c_.filters, run.batch * out[1] * out[2], run.precision)[0]);
  return k;
}

}  // namespace hpcsim

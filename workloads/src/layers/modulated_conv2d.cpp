#include "workloads/layers/modulated_conv2d.h"

#include <memory>

#include "layer_support.h"
#include "workloads/layers/conv2d.h"
#include "workloads/layers/linear.h"

namespace hpcsim {

using namespace layer_support;

namespace {

// The convolution with the shared weight; modulation and demodulation are elementwise around it.
std::unique_ptr<Layer> inner_conv(const ModulatedConvConfig& c) {
  const Conv2dConfig conv{.filters = c.filters, .kernel_h = c.kernel, .kernel_w = c.kernel, .stride_h = c.up ? 2 : 1,
                          .stride_w = c.up ? 2 : 1, .pad_h = c.up ? 0 : c.kernel / 2, .pad_w = c.up ? 0 : c.kernel / 2,
                          .bias = false};
  if (c.up) return std::make_unique<Conv2dTranspose>(conv);
  return std::make_unique<Conv2d>(conv);
}

constexpr double kBlurFlops = 32;      // 4x4 FIR filter: 16 multiply-adds per output value
constexpr double kEpilogueFlops = 3;   // demodulation scale, noise, bias

void append(std::vector<Kernel>& to, const std::vector<Kernel>& from) { to.insert(to.end(), from.begin(), from.end()); }

}  // namespace

ModulatedConv2d::ModulatedConv2d(ModulatedConvConfig config) : c_(config) {
  if (c_.filters < 1 || c_.kernel < 1 || c_.kernel % 2 == 0) {
    throw std::invalid_argument("modulated_conv2d: filters must be >= 1 and the kernel odd");
  }
}

Shape ModulatedConv2d::output_shape(const Shapes& in) const {
  if (in.size() != 2 || in[0].size() != 3 || in[1].size() != 1) {
    throw ShapeError("expects inputs {[channels, height, width], [w_dim]}");
  }
  const int f = c_.up ? 2 : 1;
  return {c_.filters, in[0][1] * f, in[0][2] * f};
}

std::int64_t ModulatedConv2d::params(const Shapes& in) const {
  output_shape(in);
  const std::int64_t cin = in[0][0], w_dim = in[1][0];
  return capped_product({w_dim, cin}) + cin + capped_product({c_.filters, cin, c_.kernel, c_.kernel}) + c_.filters +
         (c_.noise ? 1 : 0);
}

double ModulatedConv2d::forward_flops(const Shapes& in, const LayerRun& run) const {
  const Shape out = output_shape(in);
  const double cin = static_cast<double>(in[0][0]);
  const double weights = static_cast<double>(c_.filters) * cin * c_.kernel * c_.kernel;
  const double outputs = batch_elements(out, run);
  double flops = Linear(in[0][0]).forward_flops({in[1]}, run)       // styles
                 + batch_elements(in[0], run)                        // input x styles
                 + inner_conv(c_)->forward_flops({in[0]}, run) + kEpilogueFlops * outputs;
  if (c_.demodulate) flops += 2 * weights * static_cast<double>(run.batch);  // per-sample weight norms
  if (c_.up) flops += kBlurFlops * outputs;
  return flops;
}

double ModulatedConv2d::activation_bytes(const Shapes& in, const LayerRun& run) const {
  // The modulated input (for the weight gradient) and the convolution's output (for the style gradient).
  return batch_bytes(in[0], run) + batch_bytes(output_shape(in), run);
}

LayerKernels ModulatedConv2d::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  const Shape out = output_shape(in);
  const Linear affine(in[0][0]);
  const LayerKernels a = affine.kernels(gpu, {in[1]}, run);
  const LayerKernels conv = inner_conv(c_)->kernels(gpu, {in[0]}, run);
  const double inputs = batch_elements(in[0], run), outputs = batch_elements(out, run);
  const Kernel modulate = pointwise("modulate", inputs, 1, 1, 1, run.precision);
  const Kernel epilogue = pointwise("demodulate_noise_bias", outputs, kEpilogueFlops, 2, 1, run.precision);
  const Kernel blur = pointwise("upsample_fir", outputs, kBlurFlops, 1, 1, run.precision);

  LayerKernels k;
  append(k.forward, a.forward);
  // networks.py modulated_conv2d: the demodulation coefficients come from a per-sample weight tensor
  // w = weight * styles [N, O, I, k, k] in fp32, squared and summed per output channel (after, in fp16
  // blocks, scaling weight and styles by their max norms against overflow); the noise is drawn per sample
  // and pixel and scaled by its strength.
  const double per_sample_weights =
      static_cast<double>(run.batch) * static_cast<double>(c_.filters) * static_cast<double>(in[0][0]) * c_.kernel * c_.kernel;
  const bool half = run.precision == Precision::fp16 || run.precision == Precision::bf16;
  if (c_.demodulate) {
    const double weights = per_sample_weights / static_cast<double>(run.batch);
    if (half) {
      append(k.forward, row_reduction(c_.filters, in[0][0] * c_.kernel * c_.kernel, Precision::fp32));
      k.forward.push_back(pointwise("weight_prenormalize", weights, 2, 2, 1, Precision::fp32));
      append(k.forward, row_reduction(run.batch, in[0][0], Precision::fp32));
      k.forward.push_back(pointwise("style_prenormalize", static_cast<double>(run.batch * in[0][0]), 1, 2, 1, Precision::fp32));
    }
    k.forward.push_back(pointwise("modulate_weights", per_sample_weights, 1, 1, 1, Precision::fp32));
    k.forward.push_back(pointwise("square_weights", per_sample_weights, 1, 1, 1, Precision::fp32));
    append(k.forward, row_reduction(run.batch * c_.filters, in[0][0] * c_.kernel * c_.kernel, Precision::fp32));
  }
  if (c_.noise) {
    const double noise = static_cast<double>(run.batch * out[1] * out[2]);
    k.forward.push_back(pointwise("noise_randn", noise, 8, 0, 1, Precision::fp32));
    k.forward.push_back(pointwise("noise_scale", noise, 1, 1, 1, Precision::fp32));
  }
  k.forward.push_back(modulate);
  append(k.forward, conv.forward);
  if (c_.up) k.forward.push_back(blur);
  k.forward.push_back(epilogue);

  k.backward_data.push_back(epilogue);
  if (c_.up) k.backward_data.push_back(blur);
  append(k.backward_data, conv.backward_data);
  k.backward_data.push_back(modulate);
  append(k.backward_data, a.backward_data);

  append(k.backward_weight, conv.backward_weight);
  // Style gradients: the input times its gradient, summed over each channel's pixels; bias and noise
  // strength: sums over the output.
  append(k.backward_weight, row_reduction(run.batch * in[0][0], in[0][1] * in[0][2], run.precision));
  append(k.backward_weight, row_reduction(c_.filters, run.batch * out[1] * out[2], run.precision));
  if (c_.demodulate) {
    // Through the demodulation coefficients: d(w^2) per sample, then summed over the batch for the
    // weight and over outputs and taps for the styles.
    k.backward_weight.push_back(pointwise("square_weights_grad", per_sample_weights, 2, 2, 1, Precision::fp32));
    append(k.backward_weight, row_reduction(c_.filters * in[0][0] * c_.kernel * c_.kernel, run.batch, Precision::fp32));
    append(k.backward_weight, row_reduction(run.batch * in[0][0], c_.filters * c_.kernel * c_.kernel, Precision::fp32));
  }
  append(k.backward_weight, a.backward_weight);
  return k;
}

}  // namespace hpcsim

#include "models/gpu/ops/conv.h"

#include <cmath>
#include <stdexcept>

namespace hpcsim {

namespace {

// Throws std::invalid_argument for sizes no convolution has.
void check_shape(const ConvShape& c) {
  if (c.n < 1 || c.c < 1 || c.h < 1 || c.w < 1 || c.k < 1 || c.r < 1 || c.s < 1 || c.stride < 1 || c.pad < 0) {
    throw std::invalid_argument("convolution sizes must be positive (padding >= 0)");
  }
  if (c.out_h() < 1 || c.out_w() < 1) throw std::invalid_argument("the filter is larger than the padded input");
}

// The forward pass as a GEMM over the im2col view: [NPQ, CRS] x [CRS, K], reading the real input and filter.
GemmShape forward_gemm(const ConvShape& c) {
  GemmShape g;
  g.precision = c.precision;
  g.m = c.n * c.out_h() * c.out_w(), g.n = c.k, g.k = c.c * c.r * c.s;
  return g;
}

GemmOperandFootprint forward_footprint(const ConvShape& c) {
  const double e = bytes_per_element(c.precision);
  return {static_cast<double>(c.n * c.c * c.h * c.w) * e, static_cast<double>(c.k * c.c * c.r * c.s) * e};
}

}  // namespace

Kernel conv2d_tuned_for(const GpuSpec& gpu, const ConvShape& c, std::int64_t tuned_batch) {
  if (tuned_batch < 1) throw std::invalid_argument("a convolution's kernels are tuned for a batch of at least 1");
  check_shape(c);
  ConvShape tuned = c;
  tuned.n = tuned_batch;
  const GemmChoice choice = gemm_choice(gpu, forward_gemm(tuned), forward_footprint(tuned));
  Kernel kern = gemm_choice_kernel(gpu, forward_gemm(c), choice, forward_footprint(c));
  kern.name = "conv_fprop_" + kern.name;
  return kern;
}

Kernel conv2d(const GpuSpec& gpu, const ConvShape& c, ConvPass pass) {
  check_shape(c);
  const double e = bytes_per_element(c.precision);
  const double input = static_cast<double>(c.n * c.c * c.h * c.w) * e;
  const double filter = static_cast<double>(c.k * c.c * c.r * c.s) * e;
  const double output = static_cast<double>(c.n * c.k * c.out_h() * c.out_w()) * e;
  const std::int64_t npq = c.n * c.out_h() * c.out_w(), crs = c.c * c.r * c.s;
  GemmShape g;
  g.precision = c.precision;
  GemmOperandFootprint f;
  Kernel kern;
  switch (pass) {
    case ConvPass::forward:  // [NPQ, CRS] x [CRS, K]: im2col(input) x filter
      kern = gemm(gpu, forward_gemm(c), forward_footprint(c));
      kern.name = "conv_fprop_" + kern.name;
      break;
    case ConvPass::backward_data:  // [NHW, KRS] x [KRS, C]: dy scattered back through the filter
      g.m = c.n * c.h * c.w, g.n = c.c, g.k = c.k * c.r * c.s;
      f = {output, filter};
      kern = gemm(gpu, g, f);
      kern.name = "conv_dgrad_" + kern.name;
      break;
    case ConvPass::backward_weight:  // [K, NPQ] x [NPQ, CRS]: dy^T x im2col(input)
      g.m = c.k, g.n = crs, g.k = npq;
      f = {output, input};
      kern = gemm(gpu, g, f);
      kern.name = "conv_wgrad_" + kern.name;
      break;
  }
  return kern;
}

std::vector<Kernel> conv2d_winograd(const GpuSpec& gpu, const ConvShape& c, ConvPass pass) {
  if (c.r != 3 || c.s != 3 || c.stride != 1 || pass == ConvPass::backward_weight) return {};
  check_shape(c);
  constexpr double kTile = 6 * 6;  // alpha^2 transformed elements per tile (alpha = m + r - 1 = 6)
  constexpr double kOut = 4;       // m: output pixels per tile side
  // Backward data is a forward convolution of the output gradient with the rotated filter: K in, C out.
  const bool forward = pass == ConvPass::forward;
  const std::int64_t in_ch = forward ? c.c : c.k, out_ch = forward ? c.k : c.c;
  const std::int64_t out_h = forward ? c.out_h() : c.h, out_w = forward ? c.out_w() : c.w;
  const std::int64_t in_h = forward ? c.h : c.out_h(), in_w = forward ? c.w : c.out_w();
  const double tiles = static_cast<double>(c.n) * std::ceil(static_cast<double>(out_h) / kOut) *
                       std::ceil(static_cast<double>(out_w) / kOut);
  const double e = bytes_per_element(c.precision);
  const double in_elements = static_cast<double>(c.n * in_ch * in_h * in_w);
  const double out_elements = static_cast<double>(c.n * out_ch * out_h * out_w);
  const double v = kTile * tiles * static_cast<double>(in_ch);   // transformed input
  const double m = kTile * tiles * static_cast<double>(out_ch);  // products, before the output transform
  const double u = kTile * static_cast<double>(in_ch * out_ch);  // transformed filter
  // Each transform is B^T d B (or A^T m A) on a 6x6 tile: two 6x6 by 6x6 products of small integer
  // matrices, about 2 x 6 adds per transformed element.
  std::vector<Kernel> out;
  out.push_back(elementwise_kernel("winograd_filter_transform", u, 12,
                                   {{e * 9 * static_cast<double>(in_ch * out_ch) / u, false}, {e, true}}));
  out.push_back(elementwise_kernel("winograd_input_transform", v, 12, {{e * in_elements / v, false}, {e, true}}));
  GemmShape g;
  g.m = static_cast<std::int64_t>(tiles), g.n = out_ch, g.k = in_ch, g.batch = static_cast<std::int64_t>(kTile);
  g.precision = c.precision;
  Kernel batched = gemm(gpu, g);
  batched.name = "winograd_gemm_" + batched.name;
  out.push_back(batched);
  out.push_back(elementwise_kernel("winograd_output_transform", m, 12, {{e, false}, {e * out_elements / m, true}}));
  for (Kernel& k : out) {
    k.name = std::string(forward ? "conv_fprop_" : "conv_dgrad_") + k.name;
    k.work.framework_pointwise = false;  // cuDNN's own transform kernels
  }
  return out;
}

std::vector<Kernel> conv2d_fastest(const GpuSpec& gpu, const ConvShape& c, ConvPass pass) {
  std::vector<Kernel> implicit{conv2d(gpu, c, pass)};
  if (gpu.tensor_flops_per_clock_per_sm[static_cast<int>(c.precision)].has_value()) return implicit;
  std::vector<Kernel> winograd = conv2d_winograd(gpu, c, pass);
  if (winograd.empty() || estimate_op(gpu, winograd).time_s >= estimate_op(gpu, implicit).time_s) return implicit;
  return winograd;
}

}  // namespace hpcsim

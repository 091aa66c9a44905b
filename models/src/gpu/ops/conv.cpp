#include "models/gpu/ops/conv.h"

#include <stdexcept>

namespace hpcsim {

Kernel conv2d(const GpuSpec& gpu, const ConvShape& c, ConvPass pass) {
  if (c.n < 1 || c.c < 1 || c.h < 1 || c.w < 1 || c.k < 1 || c.r < 1 || c.s < 1 || c.stride < 1 || c.pad < 0) {
    throw std::invalid_argument("convolution sizes must be positive (padding >= 0)");
  }
  if (c.out_h() < 1 || c.out_w() < 1) throw std::invalid_argument("the filter is larger than the padded input");
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
      g.m = npq, g.n = c.k, g.k = crs;
      f = {input, filter};
      kern = gemm(gpu, g, f);
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

}  // namespace hpcsim

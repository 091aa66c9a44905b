#include "models/gpu/ops/fp8_cast.h"

#include <stdexcept>

namespace hpcsim {

namespace {

// A TE cast kernel: its own vectorized CUDA kernel, not a framework pointwise op, so it streams at the
// measured copy bandwidth as copy_op does.
Kernel te_kernel(std::string name, double elements, const std::vector<ElementStream>& streams) {
  Kernel k = elementwise_kernel(std::move(name), elements, 1, streams);
  k.work.framework_pointwise = false;
  return k;
}

bool per_tensor_scaled(Precision p) { return p == Precision::fp8; }

}  // namespace

std::vector<Kernel> fp8_cast(const Fp8Cast& c) {
  if (!is_narrow_gemm_format(c.to)) throw std::invalid_argument("fp8_cast: the target must be a narrow GEMM format");
  if (!(c.elements >= 1)) throw std::invalid_argument("fp8_cast: needs at least one element");
  const double from = bytes_per_element(Precision::bf16), to = bytes_per_element(c.to);
  std::vector<Kernel> out;
  if (c.scaling == Fp8Scaling::current && per_tensor_scaled(c.to)) {
    out.push_back(te_kernel("fp8_amax", c.elements, {{from, false}}));
  }
  std::vector<ElementStream> streams = {{from, false}, {to, true}};
  if (c.both_layouts) streams.push_back({to, true});
  out.push_back(te_kernel(c.both_layouts ? "fp8_cast_transpose" : "fp8_cast", c.elements, streams));
  return out;
}

Kernel fp8_transpose(double elements, Precision format) {
  if (!is_narrow_gemm_format(format)) throw std::invalid_argument("fp8_transpose: the format must be a narrow GEMM format");
  const double e = bytes_per_element(format);
  return te_kernel("fp8_transpose", elements, {{e, false}, {e, true}});
}

double fp8_cast_bytes_per_element(const Fp8Cast& c) {
  const double from = bytes_per_element(Precision::bf16), to = bytes_per_element(c.to);
  const bool amax = c.scaling == Fp8Scaling::current && per_tensor_scaled(c.to);
  return (amax ? from : 0) + from + to * (c.both_layouts ? 2 : 1);
}

}  // namespace hpcsim

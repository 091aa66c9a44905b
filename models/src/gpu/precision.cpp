#include "models/gpu/precision.h"

#include <array>

namespace hpcsim {

namespace {
// Block-scaled formats carry one scale per block: OCP Microscaling Formats (MX) Specification v1.0 (block of 32
// elements, one 8-bit E8M0 scale: mxfp8 and mxfp4); NVIDIA's NVFP4 (NVIDIA technical blog "Introducing NVFP4
// for Efficient and Accurate Low-Precision Inference", 2025: blocks of 16 4-bit E2M1 values, one FP8 E4M3
// scale each, plus one FP32 scale per tensor, not counted).
constexpr std::array<double, kPrecisionCount> kBytes = {8, 4, 4, 2, 2, 1, 1, 1 + 1.0 / 32, 0.5 + 1.0 / 16, 0.5 + 1.0 / 32};
}  // namespace

std::string_view to_string(Precision p) { return kPrecisionNames.name(p); }

std::optional<Precision> parse_precision(std::string_view name) { return kPrecisionNames.parse(name); }

double bytes_per_element(Precision p) { return kBytes[static_cast<int>(p)]; }

bool is_narrow_gemm_format(Precision p) {
  return p == Precision::fp8 || p == Precision::mxfp8 || p == Precision::nvfp4 || p == Precision::mxfp4;
}

}  // namespace hpcsim

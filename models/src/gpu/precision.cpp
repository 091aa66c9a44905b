#include "models/gpu/precision.h"

#include <array>

namespace hpcsim {

namespace {
constexpr std::array<std::string_view, kPrecisionCount> kNames = {"fp64", "fp32", "tf32", "fp16",
                                                                  "bf16", "fp8",  "int8"};
constexpr std::array<double, kPrecisionCount> kBytes = {8, 4, 4, 2, 2, 1, 1};
}  // namespace

std::string_view to_string(Precision p) { return kNames[static_cast<int>(p)]; }

std::optional<Precision> parse_precision(std::string_view name) {
  for (int i = 0; i < kPrecisionCount; ++i) {
    if (kNames[i] == name) return static_cast<Precision>(i);
  }
  return std::nullopt;
}

double bytes_per_element(Precision p) { return kBytes[static_cast<int>(p)]; }

}  // namespace hpcsim

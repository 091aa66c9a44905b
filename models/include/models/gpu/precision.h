#pragma once
// Numeric precisions a GPU computes in; names as scenarios and specs spell them.
#include <optional>
#include <string>
#include <string_view>

namespace hpcsim {

enum class Precision { fp64, fp32, tf32, fp16, bf16, fp8, int8 };
inline constexpr int kPrecisionCount = 7;

std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view name);
// Bytes per element of tensors stored in this precision (tf32 is stored as fp32).
double bytes_per_element(Precision p);

}  // namespace hpcsim

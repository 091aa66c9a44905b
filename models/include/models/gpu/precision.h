#pragma once
// Numeric precisions a GPU computes in; names as scenarios and specs spell them.
#include <optional>
#include <string>
#include <string_view>

#include "configs/enum_names.h"

namespace hpcsim {

enum class Precision { fp64, fp32, tf32, fp16, bf16, fp8, int8 };
inline constexpr int kPrecisionCount = 7;
// The one table of precision names: every schema, flag and parser takes its choices from it (a key that
// admits only some precisions with kPrecisionNames.names({...})).
inline constexpr EnumNames<Precision, kPrecisionCount> kPrecisionNames{{{{Precision::fp64, "fp64"},
                                                                        {Precision::fp32, "fp32"},
                                                                        {Precision::tf32, "tf32"},
                                                                        {Precision::fp16, "fp16"},
                                                                        {Precision::bf16, "bf16"},
                                                                        {Precision::fp8, "fp8"},
                                                                        {Precision::int8, "int8"}}}};

std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view name);
// Bytes per element of tensors stored in this precision (tf32 is stored as fp32).
double bytes_per_element(Precision p);

}  // namespace hpcsim

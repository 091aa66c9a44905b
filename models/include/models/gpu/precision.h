#pragma once
// Numeric precisions a GPU computes in; names as scenarios and specs spell them.
#include <optional>
#include <string>
#include <string_view>

#include "configs/enum_names.h"

namespace hpcsim {

// mxfp8, nvfp4 and mxfp4 are block-scaled formats (OCP Microscaling and NVIDIA's NVFP4): elements of 8 or 4 bits
// with one shared scale per block; tensor units on Blackwell (CC 10.x) and CDNA 4 run them.
enum class Precision { fp64, fp32, tf32, fp16, bf16, fp8, int8, mxfp8, nvfp4, mxfp4 };
inline constexpr int kPrecisionCount = 10;
// The one table of precision names: every schema, flag and parser takes its choices from it (a key that
// admits only some precisions with kPrecisionNames.names({...})).
inline constexpr EnumNames<Precision, kPrecisionCount> kPrecisionNames{{{{Precision::fp64, "fp64"},
                                                                        {Precision::fp32, "fp32"},
                                                                        {Precision::tf32, "tf32"},
                                                                        {Precision::fp16, "fp16"},
                                                                        {Precision::bf16, "bf16"},
                                                                        {Precision::fp8, "fp8"},
                                                                        {Precision::int8, "int8"},
                                                                        {Precision::mxfp8, "mxfp8"},
                                                                        {Precision::nvfp4, "nvfp4"},
                                                                        {Precision::mxfp4, "mxfp4"}}}};

std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view name);
// Bytes per element of tensors stored in this precision (tf32 is stored as fp32; a block-scaled format counts
// its block's scale: mxfp8 1 + 1/32, nvfp4 0.5 + 1/16, mxfp4 0.5 + 1/32).
double bytes_per_element(Precision p);
// A narrow training format whose GEMMs run in it while the tensors between GEMMs stay in bf16 (Transformer
// Engine's fp8 recipes and its MXFP8 / NVFP4 block-scaled recipes): fp8, mxfp8, nvfp4, mxfp4.
bool is_narrow_gemm_format(Precision p);

}  // namespace hpcsim

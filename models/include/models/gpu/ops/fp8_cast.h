#pragma once
// The casts a narrow-format GEMM (fp8, mxfp8, nvfp4, mxfp4) needs in training, as NVIDIA Transformer Engine
// runs them: memory-bound kernels that read a bf16 tensor and write it in the GEMM's format, plus the copy
// the other pass's GEMM reads (TE's cast_transpose; a block-scaled format writes rowwise and columnwise
// quantized copies, each with its block scales, which bytes_per_element counts).
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/precision.h"

namespace hpcsim {

// How the scale of a delayed- or current-scaled fp8 tensor is found. Delayed scaling (TE's DelayedScaling,
// the recipe of TE 1.x and of the MLPerf GPT-3 submissions) takes the scale from an amax history and records
// the new amax inside the cast kernel: no pass of its own. Current scaling (TE's Float8CurrentScaling) reads
// the tensor once for its amax before casting it. Block-scaled formats compute each block's scale in the cast.
enum class Fp8Scaling { delayed, current };

struct Fp8Cast {
  double elements = 0;
  Precision to = Precision::fp8;    // the GEMM's format
  bool both_layouts = true;         // write the copy for the other GEMM too (cast_transpose)
  Fp8Scaling scaling = Fp8Scaling::delayed;
};

// The kernels of one cast from bf16: an amax read first under current scaling (fp8 only), then the cast.
std::vector<Kernel> fp8_cast(const Fp8Cast& cast);
// Transpose of a tensor already in the narrow format (TE transposes a sequence-parallel input once it is
// gathered, in backward): read and written in that format.
Kernel fp8_transpose(double elements, Precision format);
// Bytes one cast moves per element (reads and writes), what fp8_cast's kernels stream.
double fp8_cast_bytes_per_element(const Fp8Cast& cast);

}  // namespace hpcsim

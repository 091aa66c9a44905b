#pragma once
// Shared by the layer implementations: input checks and the common memory-bound kernels.
#include <string>
#include <vector>

#include "models/gpu/ops/elementwise.h"
#include "workloads/layers/layer.h"

namespace hpcsim::layer_support {

// The single input, checked to have `rank` dimensions (0: any rank).
const Shape& single_input(const Shapes& in, std::size_t rank, const char* what);

inline double value_bytes(Precision p) { return bytes_per_element(p); }
// Bytes of `batch` samples of a shape.
double batch_bytes(const Shape& shape, const LayerRun& run);
double batch_elements(const Shape& shape, const LayerRun& run);

// One elementwise kernel over `elements` values reading `reads` tensors and writing `writes`.
Kernel pointwise(const std::string& name, double elements, double flops_per_element, int reads, int writes,
                 Precision p);

// Transformer Engine's casts around one narrow-format GEMM layer (transformer_engine/pytorch/module/linear.py,
// TE 1.x): forward, the bf16 input cast with its transposed copy for the weight gradient
// (fp8_cast_transpose_fused); a column-parallel layer under sequence parallelism casts its rank's tokens only
// (cast_to_fp8, before the all-gather) and transposes the gathered fp8 input in backward (fp8_transpose);
// backward, the output gradient cast with its transposed copy (its bias gradient fused into the same kernel,
// fp8_cast_transpose_bgrad_fused). A column-parallel layer fed by a norm (run.input_from_norm) is TE's
// LayerNormLinear (layernorm_linear.py): the norm writes its output in fp8 (its bf16 write is kept here,
// 1 B per element more than TE), and the saved fp8 output is transposed for the weight gradient in backward.
// `rows` tokens, `in` and `out` features on this rank. Nothing unless
// run.gemm_casts and the precision is a narrow GEMM format. The weights' cast is once per step (TE caches it
// after the first microbatch, is_first_microbatch), costed with the optimizer. The input cast goes before
// k.forward[forward_at] (the GEMM).
void add_gemm_casts(LayerKernels& k, std::size_t forward_at, double rows, double in, double out, bool column,
                    const LayerRun& run);
bool costs_gemm_casts(const LayerRun& run);

}  // namespace hpcsim::layer_support

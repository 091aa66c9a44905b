#pragma once
// Dense GEMM C[M,N] = A[M,K] B[K,N] (batched: `batch` independent products) as cuBLAS/CUTLASS run it:
// output tiles per thread block chosen, like their heuristics, as the fastest of a small set of CTA tiles
// by this model; the tensor-core path when the GPU has one for the precision, else the vector unit.
#include <cstdint>
#include <vector>

#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

struct GemmShape {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  Precision precision = Precision::bf16;
};

struct CtaTile {
  int m, n;
};
// The candidates, largest first: 256x128, 128x256, 128x128, 128x64, 64x64.
const std::vector<CtaTile>& gemm_cta_tiles();

// Distinct bytes of A and B when they are views of smaller tensors (implicit-GEMM convolution reads an
// input image through im2col); < 0: the full M*K and K*N.
struct GemmOperandFootprint {
  double a_bytes = -1, b_bytes = -1;
};

// The one kernel a GEMM launches with the given tile. Throws std::invalid_argument for sizes < 1 or a
// precision the GPU cannot compute in.
Kernel gemm_kernel(const GpuSpec& gpu, const GemmShape& shape, CtaTile tile, GemmOperandFootprint footprint = {});
// A tile and a split-K factor: `split` CTAs share each output tile, each over K / split, and write partial
// tiles that are summed.
struct GemmChoice {
  CtaTile tile{128, 128};
  std::int64_t split = 1;
};
Kernel gemm_choice_kernel(const GpuSpec& gpu, const GemmShape& shape, GemmChoice choice, GemmOperandFootprint footprint = {});
// The fastest tile and split for this shape, as a library's heuristic or autotuner picks per call.
GemmChoice gemm_choice(const GpuSpec& gpu, const GemmShape& shape, GemmOperandFootprint footprint = {});
// The best choice's kernel.
Kernel gemm(const GpuSpec& gpu, const GemmShape& shape, GemmOperandFootprint footprint = {});

}  // namespace hpcsim

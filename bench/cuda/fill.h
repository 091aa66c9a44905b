// Deterministic inputs: a fixed-seed hash of the element index, filled on the device (no curand, no host
// copies), so every run and every GPU sees the same data. Values lie in [-1, 1): non-zero data keeps the
// tensor cores' power draw realistic, and small magnitudes keep fp16 sums finite.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace hcb {

void fill_uniform(float* data, size_t n, uint32_t seed, cudaStream_t stream);
void fill_uniform(__half* data, size_t n, uint32_t seed, cudaStream_t stream);
void fill_uniform(__nv_bfloat16* data, size_t n, uint32_t seed, cudaStream_t stream);

}  // namespace hcb

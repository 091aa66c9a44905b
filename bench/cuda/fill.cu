#include "check.h"
#include "fill.h"

namespace hcb {
namespace {

// splitmix64's finaliser: cheap, and neighbouring indices get unrelated bits.
__device__ uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

template <class T>
__global__ void fill_kernel(T* data, size_t n, uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t bits = static_cast<uint32_t>(mix(i ^ (seed << 40)) >> 40);  // top 24 bits
    store(data + i, static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f);
  }
}

template <class T>
void launch_fill(T* data, size_t n, uint32_t seed, cudaStream_t stream) {
  // A fixed grid is enough for a memory-bound fill; the grid-stride loop covers any n.
  fill_kernel<<<1024, 256, 0, stream>>>(data, n, seed);
  CUDA_CHECK_LAUNCH(fill_kernel);
}

}  // namespace

void fill_uniform(float* data, size_t n, uint32_t seed, cudaStream_t s) { launch_fill(data, n, seed, s); }
void fill_uniform(__half* data, size_t n, uint32_t seed, cudaStream_t s) { launch_fill(data, n, seed, s); }
void fill_uniform(__nv_bfloat16* data, size_t n, uint32_t seed, cudaStream_t s) { launch_fill(data, n, seed, s); }

}  // namespace hcb

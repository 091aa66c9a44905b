// Shared-memory bank conflicts: lane l of every warp reads word l * stride. Shared memory has 32 banks of 4
// bytes, so the request splits into as many passes as the most lanes that share a bank with different words
// (gcd(stride, 32)): stride 1 takes one pass, 2 takes two, 32 takes 32. One block of 32 warps keeps enough
// requests in flight that the SM's shared-memory pipe, not latency, sets the pace; the row reports SM cycles
// (clock64) per warp-wide load.
#include "check.h"
#include "device_buffer.h"
#include "grid.h"
#include "timing.h"

namespace hcb {
namespace {

constexpr int kThreads = 1024;
constexpr int kChains = 4;                  // independent loads per thread in flight
constexpr int kChainWords = 1024;           // each chain has its own 4 KiB, so lane * stride (<= 992) fits
constexpr int kWords = kChains * kChainWords;

// Every word of the array holds 0, a value the compiler cannot know: each load's address is the previous
// load's value plus the lane's offset, so the loads cannot be hoisted or merged, yet always hit the same word.
__global__ void bank_kernel(int stride, int iters, unsigned zero, long long* cycles, unsigned* sink) {
  __shared__ unsigned words[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) words[i] = zero;
  const unsigned offset = (threadIdx.x % 32) * static_cast<unsigned>(stride);
  unsigned at[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) at[c] = c * kChainWords + offset;
  __syncthreads();

  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) at[c] = words[at[c]] + c * kChainWords + offset;
  }
  __syncthreads();
  const long long t1 = clock64();

  if (threadIdx.x == 0) *cycles = t1 - t0;
  unsigned mix = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) mix ^= at[c];
  sink[threadIdx.x] = mix;
}

}  // namespace

void run_bank_conflicts(Context& ctx) {
  const int iters = ctx.quick ? 256 : 1024;
  DeviceCycles cycles(1);
  DeviceBuffer<unsigned> sink(kThreads);
  const double warp_loads = static_cast<double>(iters) * kChains * (kThreads / 32);

  for (int stride = 1; stride <= 32; ++stride) {
    std::vector<double> per_access;
    for (int t = 0; t < ctx.trials; ++t) {
      bank_kernel<<<1, kThreads, 0, ctx.stream>>>(stride, iters, 0u, cycles.get(), sink.get());
      CUDA_CHECK_LAUNCH(bank_kernel);
      long long c = 0;
      CUDA_CHECK(cudaMemcpyAsync(&c, cycles.get(), sizeof c, cudaMemcpyDeviceToHost, ctx.stream));
      CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      if (t > 0) per_access.push_back(static_cast<double>(c) / warp_loads);  // the first run is the warm-up
    }
    ctx.out->row("bank-conflicts", Params().add("stride", stride), "cycles_per_access", median(per_access),
                 "cycles");
  }
}

}  // namespace hcb

// FMA instruction-level parallelism: each thread runs `chains` independent chains of dependent fp32 FMAs.
// With one warp per warp scheduler (4 per SM) nothing else hides the FMA latency, so one chain pays the full
// latency per FMA and more chains overlap until the FP32 pipe's issue rate binds. Rows: SM cycles per
// warp-wide FMA of one warp (clock64, median over warps) and the whole GPU's FLOP rate (events).
#include "check.h"
#include "device_buffer.h"
#include "grid.h"
#include "timing.h"

#include <vector>

namespace hcb {
namespace {

constexpr int kThreads = 128;  // one warp per scheduler on every architecture since Volta
constexpr int kUnroll = 8;     // FMAs per chain per loop trip, so loop overhead stays off the FMA pipe

template <int C>
__global__ void fma_chains_kernel(int iters, float a, float b, float* out, long long* warp_cycles) {
  float x[C];
#pragma unroll
  for (int c = 0; c < C; ++c) x[c] = static_cast<float>(threadIdx.x + c) * 1e-3f;
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < C; ++c) x[c] = fmaf(x[c], a, b);
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < C; ++c) sum += x[c];  // the chains' results are used only after the second clock read
  const long long t1 = clock64();
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  out[tid] = sum;
  if (threadIdx.x % 32 == 0) warp_cycles[tid / 32] = t1 - t0;
}

template <int C>
void run_chains(Context& ctx, int iters) {
  const int grid = ctx.prop.multiProcessorCount;  // one block of 4 warps per SM
  const size_t threads = static_cast<size_t>(grid) * kThreads;
  DeviceBuffer<float> out(threads);
  DeviceCycles warp_cycles(threads / 32);

  const double us = time_op_us(ctx, [&] {
    fma_chains_kernel<C><<<grid, kThreads, 0, ctx.stream>>>(iters, 0.9999f, 1e-4f, out.get(), warp_cycles.get());
    CUDA_CHECK_LAUNCH(fma_chains_kernel);
  });
  std::vector<long long> cycles(warp_cycles.count());
  CUDA_CHECK(cudaMemcpyAsync(cycles.data(), warp_cycles.get(), cycles.size() * sizeof(long long),
                             cudaMemcpyDeviceToHost, ctx.stream));
  CUDA_CHECK(cudaStreamSynchronize(ctx.stream));

  const double fmas_per_thread = static_cast<double>(iters) * kUnroll * C;
  std::vector<double> per_fma;
  for (const long long c : cycles) per_fma.push_back(static_cast<double>(c) / fmas_per_thread);
  const Params params = Params().add("chains", C).add("iters", iters);
  ctx.out->row("fma-ilp", params, "cycles_per_fma", median(per_fma), "cycles");
  ctx.out->row("fma-ilp", params, "tflops", 2.0 * fmas_per_thread * static_cast<double>(threads) / (us * 1e6),
               "TFLOP/s");
}

}  // namespace

void run_fma_ilp(Context& ctx) {
  const int iters = ctx.quick ? 4096 : 16384;
  run_chains<1>(ctx, iters);
  run_chains<2>(ctx, iters);
  run_chains<3>(ctx, iters);
  run_chains<4>(ctx, iters);
  run_chains<5>(ctx, iters);
  run_chains<6>(ctx, iters);
  run_chains<7>(ctx, iters);
  run_chains<8>(ctx, iters);
}

}  // namespace hcb

// Special-function and conversion throughput: each thread runs independent chains of one instruction (a base-2
// exponential, or a conversion between fp32, int32, int8 and fp16) with 32 warps per SM, enough to hide every
// latency, so the unit's issue rate binds. Rows: results per SM per clock (from clock64 around the block's
// work, so independent of the clock speed) and the GPU's rate in Gresults/s (events). These are what a fused
// attention kernel's softmax pays per score on top of its matrix products (hpcsim's `sfu_lanes_per_sm`).
#include "check.h"
#include "device_buffer.h"
#include "grid.h"
#include "timing.h"

#include <vector>

namespace hcb {
namespace {

constexpr int kThreads = 1024;  // 32 warps on one SM: 8 per scheduler
constexpr int kChains = 4;      // independent chains per thread
constexpr int kUnroll = 8;      // instructions per chain per loop trip

// One instruction of each kind, as inline PTX so the compiler neither folds nor substitutes it. Each keeps its
// chain in a 32-bit register: the result's bits feed the next instruction (values are irrelevant to the rate).
struct Ex2 {
  static constexpr const char* name = "ex2";
  __device__ static unsigned step(unsigned x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(__uint_as_float(x)));
    return __float_as_uint(y);
  }
};
struct Rcp {
  static constexpr const char* name = "rcp";
  __device__ static unsigned step(unsigned x) {
    float y;
    asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(__uint_as_float(x)));
    return __float_as_uint(y) ^ 1u;  // ptxas folds rcp(rcp(x)) to x (no MUFU.RCP left in the SASS); this stops it
  }
};
struct S32ToF32 {
  static constexpr const char* name = "s32-to-f32";
  __device__ static unsigned step(unsigned x) {
    float y;
    asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(y) : "r"(x));
    return __float_as_uint(y);
  }
};
struct F32ToS32 {
  static constexpr const char* name = "f32-to-s32";
  __device__ static unsigned step(unsigned x) {
    unsigned y;
    asm volatile("cvt.rni.s32.f32 %0, %1;" : "=r"(y) : "f"(__uint_as_float(x)));
    return y;
  }
};
struct F32ToS8 {
  static constexpr const char* name = "f32-to-s8";
  __device__ static unsigned step(unsigned x) {
    unsigned y;
    asm volatile("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(y) : "f"(__uint_as_float(x)));
    return y ^ x;  // keeps the chain's other bits alive: the next input is not a small integer's bits alone
  }
};
struct F32x2ToF16x2 {
  static constexpr const char* name = "f32x2-to-f16x2";
  __device__ static unsigned step(unsigned x) {
    unsigned y;
    asm volatile("cvt.rn.f16x2.f32 %0, %1, %1;" : "=r"(y) : "f"(__uint_as_float(x)));
    return y;
  }
};
struct F32Mul {  // the FP32 pipe, for scale: 128 per SM per clock on Ampere and Hopper
  static constexpr const char* name = "fmul";
  __device__ static unsigned step(unsigned x) {
    float y;
    asm volatile("mul.rn.f32 %0, %1, %1;" : "=f"(y) : "f"(__uint_as_float(x)));
    return __float_as_uint(y);
  }
};

template <class Op>
__global__ void chains_kernel(int iters, unsigned seed, unsigned* out, long long* block_cycles) {
  unsigned x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = seed + threadIdx.x * 7u + c;
  __syncthreads();
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) x[c] = Op::step(x[c]);
    }
  }
  unsigned sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum ^= x[c];
  __syncthreads();  // the block's last warp has finished: t1 - t0 is the whole block's time on its SM
  const long long t1 = clock64();
  out[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  if (threadIdx.x == 0) block_cycles[blockIdx.x] = t1 - t0;
}

template <class Op>
void run_op(Context& ctx, int iters) {
  const int grid = ctx.prop.multiProcessorCount;  // one 1024-thread block per SM
  const size_t threads = static_cast<size_t>(grid) * kThreads;
  DeviceBuffer<unsigned> out(threads);
  DeviceCycles block_cycles(grid);

  const double us = time_op_us(ctx, [&] {
    chains_kernel<Op><<<grid, kThreads, 0, ctx.stream>>>(iters, 0x3f000000u, out.get(), block_cycles.get());
    CUDA_CHECK_LAUNCH(chains_kernel);
  });
  std::vector<long long> cycles(block_cycles.count());
  CUDA_CHECK(cudaMemcpyAsync(cycles.data(), block_cycles.get(), cycles.size() * sizeof(long long),
                             cudaMemcpyDeviceToHost, ctx.stream));
  CUDA_CHECK(cudaStreamSynchronize(ctx.stream));

  const double results_per_block = static_cast<double>(iters) * kUnroll * kChains * kThreads;
  std::vector<double> per_clock;
  for (const long long c : cycles) per_clock.push_back(results_per_block / static_cast<double>(c));
  const Params params = Params().add("op", Op::name);
  ctx.out->row("special-functions", params, "results_per_sm_per_clock", median(per_clock), "1/cycle");
  ctx.out->row("special-functions", params, "gresults_per_s", results_per_block * grid / (us * 1e3), "G/s");
}

}  // namespace

void run_special_functions(Context& ctx) {
  const int iters = ctx.quick ? 256 : 1024;
  run_op<F32Mul>(ctx, iters);
  run_op<Ex2>(ctx, iters);
  run_op<Rcp>(ctx, iters);
  run_op<S32ToF32>(ctx, iters);
  run_op<F32ToS32>(ctx, iters);
  run_op<F32ToS8>(ctx, iters);
  run_op<F32x2ToF16x2>(ctx, iters);
}

}  // namespace hcb

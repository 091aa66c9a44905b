// Occupancy sweep: one streaming read kernel at several block sizes and register counts, against the
// bandwidth it achieves. Fewer resident warps mean fewer loads in flight, and below the point Little's law
// asks for (latency x bandwidth) the bandwidth falls. Registers are raised by values held live across the
// loop; the row's regs is what the compiler actually allocated (cudaFuncGetAttributes), and a variant that
// spills to local memory is left out, since spills would be traffic of their own.
#include "check.h"
#include "device_buffer.h"
#include "fill.h"
#include "grid.h"
#include "timing.h"

#include <set>

namespace hcb {
namespace {

// kHeld words are read (volatile, so each is loaded exactly here) before the loop and folded into the result
// after it, in an order floating point cannot reassociate: all of them stay in registers throughout.
template <int kHeld>
__global__ void held_registers_read_kernel(const float* __restrict__ in, size_t n, const float* held_src,
                                           float* __restrict__ out) {
  float held[kHeld > 0 ? kHeld : 1];
#pragma unroll
  for (int j = 0; j < kHeld; ++j) held[j] = static_cast<const volatile float*>(held_src)[j];
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (size_t i = tid; i < n; i += threads) sum += in[i];
#pragma unroll
  for (int j = 0; j < kHeld; ++j) sum = sum * 0.5f + held[j];
  out[tid] = sum;
}

struct Variant {
  const void* func;
  void (*launch)(int grid, int block, cudaStream_t s, const float* in, size_t n, const float* held, float* out);
};

template <int kHeld>
Variant variant() {
  return {reinterpret_cast<const void*>(held_registers_read_kernel<kHeld>),
          [](int grid, int block, cudaStream_t s, const float* in, size_t n, const float* held, float* out) {
            held_registers_read_kernel<kHeld><<<grid, block, 0, s>>>(in, n, held, out);
          }};
}

}  // namespace

void run_occupancy_sweep(Context& ctx) {
  const size_t n = ctx.quick ? (size_t{1} << 24) : (size_t{1} << 26);  // 64 or 256 MiB: beyond the L2
  DeviceBuffer<float> in(n);
  fill_uniform(in.get(), n, 1, ctx.stream);
  DeviceBuffer<float> held(256);
  fill_uniform(held.get(), held.count(), 2, ctx.stream);
  // Out holds one float per thread of the largest grid: 2048 threads per SM on every supported GPU.
  DeviceBuffer<float> out(static_cast<size_t>(ctx.prop.multiProcessorCount) * ctx.prop.maxThreadsPerMultiProcessor);

  const Variant variants[] = {variant<0>(), variant<24>(), variant<56>(), variant<88>(), variant<120>(),
                              variant<184>(), variant<224>()};
  const int blocks[] = {64, 128, 256, 512, 1024};
  std::set<int> regs_seen;
  for (const Variant& v : variants) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, v.func));
    if (attr.localSizeBytes > 0 || !regs_seen.insert(attr.numRegs).second) continue;
    for (const int block : blocks) {
      if (block > attr.maxThreadsPerBlock) continue;
      const int per_sm = blocks_per_sm(v.func, block);
      if (per_sm == 0) continue;
      const int grid = per_sm * ctx.prop.multiProcessorCount;
      const double us = time_op_us(ctx, [&] {
        v.launch(grid, block, ctx.stream, in.get(), n, held.get(), out.get());
        CUDA_CHECK(cudaGetLastError());
      });
      const Params params = Params().add("block", block).add("regs", attr.numRegs).add("n", static_cast<long long>(n));
      ctx.out->row("occupancy-sweep", params, "blocks_per_sm", per_sm, "blocks");
      ctx.out->row("occupancy-sweep", params, "gbps", gb_per_s(4.0 * static_cast<double>(n), us), "GB/s");
    }
  }
}

}  // namespace hcb

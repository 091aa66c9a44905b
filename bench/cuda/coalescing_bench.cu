// Coalescing: a warp's 32 loads of one float each, `stride` elements apart. Stride 1 is one 128-byte request
// (4 sectors); stride 8 or more puts every lane in its own 32-byte sector, so DRAM moves up to 8x the bytes
// the threads asked for. The row reports the bandwidth the threads see (useful bytes per second). Sectors per
// request would need the profiler's counters (CUPTI), which this cudart-only suite does not read. The `l2-fetch`
// rows repeat a few strides at each L2 fetch granularity the runtime accepts.
#include "check.h"
#include "device_buffer.h"
#include "fill.h"
#include "grid.h"
#include "timing.h"

namespace hcb {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxStride = 32;

// Element i of the n useful ones lives at i * stride. Each thread keeps a private sum and stores it, so no load
// can be dropped and the stores (one float per thread) are negligible beside the loads.
__global__ void strided_read_kernel(const float* __restrict__ in, size_t n, int stride, float* __restrict__ out) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (size_t i = tid; i < n; i += threads) sum += in[i * stride];
  out[tid] = sum;
}

}  // namespace

void run_coalescing(Context& ctx) {
  // 128 MiB of useful data: well beyond any L2, so even stride 1 streams from DRAM.
  const size_t n = ctx.quick ? (size_t{1} << 23) : (size_t{1} << 25);
  DeviceBuffer<float> in(n * kMaxStride);
  fill_uniform(in.get(), in.count(), 1, ctx.stream);
  const int grid = resident_grid(ctx, strided_read_kernel, kThreads);
  DeviceBuffer<float> out(static_cast<size_t>(grid) * kThreads);
  const auto time_stride = [&](int stride) {
    return time_op_us(ctx, [&] {
      strided_read_kernel<<<grid, kThreads, 0, ctx.stream>>>(in.get(), n, stride, out.get());
      CUDA_CHECK_LAUNCH(strided_read_kernel);
    });
  };

  for (int stride = 1; stride <= kMaxStride; ++stride) {
    const double us = time_stride(stride);
    const Params params = Params().add("stride", stride).add("n", static_cast<long long>(n));
    ctx.out->row("coalescing", params, "time_us", us, "us");
    ctx.out->row("coalescing", params, "gbps", gb_per_s(4.0 * static_cast<double>(n), us), "GB/s");
  }

  // The same reads at each L2 fetch granularity the runtime accepts (cudaLimitMaxL2FetchGranularity, "a hint",
  // 0-128 bytes): the H200's first run read min(stride, 16) x the useful bytes past stride 8, as if DRAM were
  // read 64 bytes at a time. `l2-fetch` rows: the default the runtime reports, then each setting's rates at the
  // strides that tell 32, 64 and 128-byte fetches apart. A setting the driver refuses is skipped.
  size_t fetch_default = 0;
  if (cudaDeviceGetLimit(&fetch_default, cudaLimitMaxL2FetchGranularity) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  ctx.out->row("l2-fetch", Params().add("setting", "default"), "granularity", static_cast<double>(fetch_default), "bytes");
  for (const int fetch : {32, 64, 128}) {
    if (cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, fetch) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    size_t applied = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&applied, cudaLimitMaxL2FetchGranularity));
    for (const int stride : {1, 2, 4, 8, 12, 16, 24, 32}) {
      const Params params =
          Params().add("granularity", static_cast<long long>(applied)).add("stride", stride).add("n", static_cast<long long>(n));
      ctx.out->row("l2-fetch", params, "gbps", gb_per_s(4.0 * static_cast<double>(n), time_stride(stride)), "GB/s");
    }
  }
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, fetch_default));
}

}  // namespace hcb

// STREAM triad, a[i] = b[i] + s*c[i]: the achievable HBM bandwidth of a plain kernel (two reads, one write).
#include "check.h"
#include "device_buffer.h"
#include "fill.h"
#include "timing.h"

#include <vector>

namespace hcb {
namespace {

constexpr int kTriadThreads = 256;

// Grid-stride so one grid sized to fill the GPU handles every n; __restrict__ lets the loads be batched.
__global__ void triad_kernel(float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                             float s, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    a[i] = b[i] + s * c[i];
  }
}

}  // namespace

void run_triad(Context& ctx) {
  const std::vector<int> log2_sizes = ctx.quick ? std::vector<int>{24} : std::vector<int>{20, 24, 26};

  // As many resident blocks as the GPU holds: enough loads in flight to saturate memory without a tail wave.
  int blocks_per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, triad_kernel, kTriadThreads, 0));
  const int grid = blocks_per_sm * ctx.prop.multiProcessorCount;

  for (const int lg : log2_sizes) {
    const size_t n = size_t{1} << lg;
    DeviceBuffer<float> a(n);
    DeviceBuffer<float> b(n);
    DeviceBuffer<float> c(n);
    fill_uniform(a.get(), n, 1, ctx.stream);
    fill_uniform(b.get(), n, 2, ctx.stream);
    fill_uniform(c.get(), n, 3, ctx.stream);

    const double us = time_op_us(ctx, [&] {
      triad_kernel<<<grid, kTriadThreads, 0, ctx.stream>>>(a.get(), b.get(), c.get(), 3.0f, n);
      CUDA_CHECK_LAUNCH(triad_kernel);
    });

    const Params params = Params().add("n", static_cast<long long>(n)).add("dtype", "fp32");
    ctx.out->row("triad", params, "time_us", us, "us");
    ctx.out->row("triad", params, "gbps", gb_per_s(12.0 * static_cast<double>(n), us), "GB/s");
  }
}

}  // namespace hcb

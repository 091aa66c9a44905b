// Branch divergence: the lanes of each warp split evenly over `paths` code paths (lane % paths), each doing
// the same chain of FMAs. A warp runs one path at a time with the other lanes masked off, so the time grows
// with the number of paths a warp holds, though every thread does the same work. Timed with events over a
// grid that fills the GPU.
#include "check.h"
#include "device_buffer.h"
#include "grid.h"
#include "timing.h"

namespace hcb {
namespace {

constexpr int kThreads = 256;

// The outer loop is warp-uniform; the test inside it is not, so the inner loop runs once per path with only
// that path's lanes active. a and b come from the host, so the chain cannot be folded.
__global__ void divergent_kernel(int paths, int work, float a, float b, float* out) {
  const int path = static_cast<int>(threadIdx.x % 32) % paths;
  float x = static_cast<float>(threadIdx.x) * 1e-3f;
  for (int p = 0; p < paths; ++p) {
    if (path == p) {
      for (int k = 0; k < work; ++k) x = fmaf(x, a, b);
    }
  }
  out[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = x;
}

}  // namespace

void run_divergence(Context& ctx) {
  const int work = ctx.quick ? 256 : 1024;
  const int grid = resident_grid(ctx, divergent_kernel, kThreads);
  DeviceBuffer<float> out(static_cast<size_t>(grid) * kThreads);

  for (int paths = 1; paths <= 32; ++paths) {
    const double us = time_op_us(ctx, [&] {
      divergent_kernel<<<grid, kThreads, 0, ctx.stream>>>(paths, work, 0.9999f, 1e-4f, out.get());
      CUDA_CHECK_LAUNCH(divergent_kernel);
    });
    ctx.out->row("divergence", Params().add("paths", paths), "time_us", us, "us");
  }
}

}  // namespace hcb

// Copy/compute overlap: a host-to-device copy on one stream and a compute kernel on another, enqueued copy
// first. From pinned memory the copy engine and the SMs run at once, so both together take about as long as
// the longer one; from pageable memory the runtime stages the copy through a pinned buffer with the host
// thread, cudaMemcpyAsync returns only when it is done, and the kernel starts after it. Times are host wall
// clock from the first enqueue to both streams finished; the kernel is sized to take about as long as the
// pinned copy, so the overlap shows at its largest.
#include "check.h"
#include "device_buffer.h"
#include "grid.h"
#include "timing.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace hcb {
namespace {

constexpr int kThreads = 256;

__global__ void busy_kernel(int iters, float a, float b, float* out) {
  float x0 = threadIdx.x * 1e-3f, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
  for (int i = 0; i < iters; ++i) {
    x0 = fmaf(x0, a, b);
    x1 = fmaf(x1, a, b);
    x2 = fmaf(x2, a, b);
    x3 = fmaf(x3, a, b);
  }
  out[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3;
}

template <class Op>
double median_wall_us(const Context& ctx, Op&& op) {
  op();  // warm-up
  std::vector<double> us;
  for (int t = 0; t < ctx.trials; ++t) {
    const auto t0 = std::chrono::steady_clock::now();
    op();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(us);
}

// One size: the kernel is sized to this size's pinned copy.
void overlap_at(Context& ctx, size_t bytes) {
  DeviceBuffer<char> device(bytes);
  PinnedBuffer pinned(bytes);
  std::vector<char> pageable(bytes);
  std::memset(pinned.get(), 0x5a, bytes);  // touch every page before timing
  std::memset(pageable.data(), 0x5a, bytes);
  Stream copy_stream;
  Stream compute_stream;
  const int grid = resident_grid(ctx, busy_kernel, kThreads);
  DeviceBuffer<float> out(static_cast<size_t>(grid) * kThreads);

  auto copy_from = [&](const void* host) {
    CUDA_CHECK(cudaMemcpyAsync(device.get(), host, bytes, cudaMemcpyHostToDevice, copy_stream.get()));
  };
  auto compute = [&](int iters) {
    busy_kernel<<<grid, kThreads, 0, compute_stream.get()>>>(iters, 0.9999f, 1e-4f, out.get());
    CUDA_CHECK_LAUNCH(busy_kernel);
  };
  auto wait_both = [&] {
    CUDA_CHECK(cudaStreamSynchronize(copy_stream.get()));
    CUDA_CHECK(cudaStreamSynchronize(compute_stream.get()));
  };

  // Size the kernel to the pinned copy: time a probe, then scale its loop count.
  const double copy_pinned_us = median_wall_us(ctx, [&] { copy_from(pinned.get()); wait_both(); });
  const int probe_iters = 1 << 14;
  const double probe_us = median_wall_us(ctx, [&] { compute(probe_iters); wait_both(); });
  const int iters = static_cast<int>(std::clamp(probe_iters * copy_pinned_us / probe_us, 1024.0, 1e9));

  struct Memory {
    const char* name;
    const void* host;
  };
  for (const Memory m : {Memory{"pinned", pinned.get()}, Memory{"pageable", pageable.data()}}) {
    const double copy_us = median_wall_us(ctx, [&] { copy_from(m.host); wait_both(); });
    const double compute_us = median_wall_us(ctx, [&] { compute(iters); wait_both(); });
    const double both_us = median_wall_us(ctx, [&] { copy_from(m.host); compute(iters); wait_both(); });
    // The share of the shorter activity hidden under the longer: 1 is full overlap, 0 none.
    const double hidden = (copy_us + compute_us - both_us) / std::min(copy_us, compute_us);
    const Params params = Params().add("memory", m.name).add("bytes", static_cast<long long>(bytes));
    ctx.out->row("overlap", params, "copy_us", copy_us, "us");
    ctx.out->row("overlap", params, "compute_us", compute_us, "us");
    ctx.out->row("overlap", params, "both_us", both_us, "us");
    ctx.out->row("overlap", params, "overlap_fraction", hidden, "fraction");
    if (m.host == pageable.data()) {
      // The host thread's own copy of the same bytes from pageable into pinned memory: what the runtime's
      // staging of a pageable copy costs the host, measured apart so a model of the staging can be checked.
      const double memcpy_us = median_wall_us(ctx, [&] { std::memcpy(pinned.get(), pageable.data(), bytes); });
      ctx.out->row("overlap", params, "staging_memcpy_us", memcpy_us, "us");
    }
  }
}

}  // namespace

// Several sizes: a pageable copy's staging and the runtime's return point show against the copy's length.
void run_overlap(Context& ctx) {
  constexpr size_t MiB = size_t{1} << 20;
  const std::vector<size_t> sizes = ctx.quick ? std::vector<size_t>{64 * MiB} : std::vector<size_t>{16 * MiB, 64 * MiB, 256 * MiB};
  for (const size_t bytes : sizes) overlap_at(ctx, bytes);
}

}  // namespace hcb

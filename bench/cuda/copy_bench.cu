// Device-to-device cudaMemcpyAsync: the copy engine / copy kernel path a framework uses for tensor copies.
// Small sizes stay in L2 when repeated; that is part of what the simulator needs to know.
#include "check.h"
#include "device_buffer.h"
#include "fill.h"
#include "timing.h"

#include <vector>

namespace hcb {

void run_copy(Context& ctx) {
  constexpr size_t MiB = size_t{1} << 20;
  const std::vector<size_t> sizes =
      ctx.quick ? std::vector<size_t>{16 * MiB, 256 * MiB} : std::vector<size_t>{MiB, 16 * MiB, 256 * MiB, 1024 * MiB};

  for (const size_t bytes : sizes) {
    DeviceBuffer<float> src(bytes / sizeof(float));
    DeviceBuffer<float> dst(bytes / sizeof(float));
    fill_uniform(src.get(), src.count(), 1, ctx.stream);

    const double us = time_op_us(ctx, [&] {
      CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    });

    // Bandwidth counts the copied bytes once (not read + write), as nvbandwidth-style tools report it.
    const Params params = Params().add("bytes", static_cast<long long>(bytes));
    ctx.out->row("copy", params, "time_us", us, "us");
    ctx.out->row("copy", params, "gbps", gb_per_s(static_cast<double>(bytes), us), "GB/s");
  }
}

}  // namespace hcb

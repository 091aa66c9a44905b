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
  // 4-64 MiB step across L2 (50 MiB on H100/H200, 40 MiB on A100): a repeated copy of `bytes` keeps 2 x bytes
  // of source and destination there while it fits.
  const std::vector<size_t> sizes =
      ctx.quick ? std::vector<size_t>{16 * MiB, 256 * MiB}
                : std::vector<size_t>{MiB,      4 * MiB,  8 * MiB,   12 * MiB,  16 * MiB,  20 * MiB, 24 * MiB,
                                      32 * MiB, 48 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB};

  for (const size_t bytes : sizes) {
    DeviceBuffer<float> src(bytes / sizeof(float));
    DeviceBuffer<float> dst(bytes / sizeof(float));
    fill_uniform(src.get(), src.count(), 1, ctx.stream);

    auto call = [&] { CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, ctx.stream)); };
    const double us = time_op_us(ctx, call);
    // Replayed from a CUDA graph: the copy's GPU time where the loop reads the host's enqueue rate (small sizes).
    const double graph_us = time_graph_us(ctx, graph_calls(us), call);

    // Bandwidth counts the copied bytes once (not read + write), as nvbandwidth-style tools report it.
    const Params params = Params().add("bytes", static_cast<long long>(bytes));
    ctx.out->row("copy", params, "time_us", us, "us");
    ctx.out->row("copy", params, "gbps", gb_per_s(static_cast<double>(bytes), us), "GB/s");
    const Params graph_params = Params(params).add("graph", 1);
    ctx.out->row("copy", graph_params, "time_us", graph_us, "us");
    ctx.out->row("copy", graph_params, "gbps", gb_per_s(static_cast<double>(bytes), graph_us), "GB/s");
  }
}

}  // namespace hcb

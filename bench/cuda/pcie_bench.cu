// Host<->device bandwidth over PCIe (or NVLink-C2C) from pinned memory: the path of data loading and offload.
#include "check.h"
#include "device_buffer.h"
#include "fill.h"
#include "timing.h"

#include <cstring>

namespace hcb {

void run_pcie(Context& ctx) {
  constexpr size_t kBytes = size_t{256} << 20;
  PinnedBuffer host(kBytes);
  DeviceBuffer<float> device(kBytes / sizeof(float));
  std::memset(host.get(), 0x5a, kBytes);  // touch every page before timing
  fill_uniform(device.get(), device.count(), 1, ctx.stream);

  struct Direction {
    const char* name;
    cudaMemcpyKind kind;
  };
  for (const Direction dir : {Direction{"h2d", cudaMemcpyHostToDevice}, Direction{"d2h", cudaMemcpyDeviceToHost}}) {
    void* dst = dir.kind == cudaMemcpyHostToDevice ? static_cast<void*>(device.get()) : host.get();
    const void* src = dir.kind == cudaMemcpyHostToDevice ? host.get() : static_cast<const void*>(device.get());
    const double us =
        time_op_us(ctx, [&] { CUDA_CHECK(cudaMemcpyAsync(dst, src, kBytes, dir.kind, ctx.stream)); });
    const Params params = Params().add("direction", dir.name).add("bytes", static_cast<long long>(kBytes));
    ctx.out->row("pcie", params, "gbps", gb_per_s(static_cast<double>(kBytes), us), "GB/s");
  }
}

}  // namespace hcb

// Launch overhead: what one empty kernel costs the host to enqueue and the GPU to retire, back to back.
#include "check.h"
#include "timing.h"

#include <chrono>

namespace hcb {
namespace {

__global__ void empty_kernel() {}

constexpr int kLaunches = 10000;

}  // namespace

void run_launch(Context& ctx) {
  auto launch_all = [&] {
    for (int i = 0; i < kLaunches; ++i) empty_kernel<<<1, 32, 0, ctx.stream>>>();
  };

  // Warm-up: loads the module and fills the launch path's caches.
  launch_all();
  CUDA_CHECK_LAUNCH(empty_kernel);
  CUDA_CHECK(cudaStreamSynchronize(ctx.stream));

  // Each trial times the same launches twice: the host clock sees the enqueue rate (the queue fills, so this
  // is throughput, not a single launch's latency), the events see how fast the GPU drains them.
  EventPair ev;
  std::vector<double> host_us;
  std::vector<double> gpu_us;
  for (int t = 0; t < ctx.trials; ++t) {
    ev.start(ctx.stream);
    const auto t0 = std::chrono::steady_clock::now();
    launch_all();
    const auto t1 = std::chrono::steady_clock::now();
    ev.stop(ctx.stream);
    CUDA_CHECK_LAUNCH(empty_kernel);
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches);
    gpu_us.push_back(ev.elapsed_ms() * 1000.0 / kLaunches);
  }

  const Params params = Params().add("kind", "empty");
  ctx.out->row("launch", params, "host_us", median(host_us), "us");
  ctx.out->row("launch", params, "gpu_us", median(gpu_us), "us");
}

}  // namespace hcb

// Launch overhead: what one empty kernel costs the host to enqueue and the GPU to retire, back to back, launched
// one by one (graph=0) or as one CUDA graph holding the same launches (graph=1), which the host submits once.
// Then kernels that spin a set number of SM clock cycles, back to back (launch-work rows): whether a kernel's
// launch latency adds to its work (launch + spin, as Accel-Sim delays a kernel's start) or hides under it
// (max(launch, spin), as hpcsim's kernel model times it) is what the GPU time per kernel shows as the spin grows.
#include "check.h"
#include "timing.h"

#include <chrono>

namespace hcb {
namespace {

__global__ void empty_kernel() {}

constexpr int kLaunches = 10000;

void launch_all(cudaStream_t stream) {
  for (int i = 0; i < kLaunches; ++i) empty_kernel<<<1, 32, 0, stream>>>();
}

// The same kLaunches launches captured once into an executable graph.
class LaunchGraph {
 public:
  explicit LaunchGraph(cudaStream_t stream) {
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    launch_all(stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~LaunchGraph() {
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
  }
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;
  void launch(cudaStream_t stream) { CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Each trial times the same launches twice: the host clock sees the enqueue rate (the queue fills, so this
// is throughput, not a single launch's latency), the events see how fast the GPU drains them.
template <class Submit>
void time_launches(Context& ctx, const char* graph, Submit&& submit) {
  // Warm-up: loads the module and fills the launch path's caches.
  submit();
  CUDA_CHECK_LAUNCH(empty_kernel);
  CUDA_CHECK(cudaStreamSynchronize(ctx.stream));

  EventPair ev;
  std::vector<double> host_us;
  std::vector<double> gpu_us;
  for (int t = 0; t < ctx.trials; ++t) {
    ev.start(ctx.stream);
    const auto t0 = std::chrono::steady_clock::now();
    submit();
    const auto t1 = std::chrono::steady_clock::now();
    ev.stop(ctx.stream);
    CUDA_CHECK_LAUNCH(empty_kernel);
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches);
    gpu_us.push_back(ev.elapsed_ms() * 1000.0 / kLaunches);
  }

  const Params params = Params().add("graph", graph);
  ctx.out->row("launch", params, "host_us", median(host_us), "us");
  ctx.out->row("launch", params, "gpu_us", median(gpu_us), "us");
}

// One warp that waits `cycles` SM clock cycles (clock64) and exits: work with no memory traffic.
__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

constexpr int kSpinLaunches = 2000;
constexpr long long kSpinCycles[] = {500, 1000, 2000, 4000, 8000, 16000};

void time_spins(Context& ctx) {
  for (const long long cycles : kSpinCycles) {
    for (int i = 0; i < kSpinLaunches; ++i) spin_kernel<<<1, 32, 0, ctx.stream>>>(cycles);  // warm-up
    CUDA_CHECK_LAUNCH(spin_kernel);
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    EventPair ev;
    std::vector<double> gpu_us;
    for (int t = 0; t < ctx.trials; ++t) {
      ev.start(ctx.stream);
      for (int i = 0; i < kSpinLaunches; ++i) spin_kernel<<<1, 32, 0, ctx.stream>>>(cycles);
      ev.stop(ctx.stream);
      CUDA_CHECK_LAUNCH(spin_kernel);
      CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      gpu_us.push_back(ev.elapsed_ms() * 1000.0 / kSpinLaunches);
    }
    ctx.out->row("launch-work", Params().add("spin_cycles", cycles), "gpu_us", median(gpu_us), "us");
  }
}

}  // namespace

void run_launch(Context& ctx) {
  time_launches(ctx, "0", [&] { launch_all(ctx.stream); });
  LaunchGraph graph(ctx.stream);
  time_launches(ctx, "1", [&] { graph.launch(ctx.stream); });
  time_spins(ctx);
}

}  // namespace hcb

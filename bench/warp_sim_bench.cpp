// WarpSim speed: simulated warp instructions per second of wall time on one core (target: >= 50 million;
// cycle-level simulators such as Accel-Sim run orders of magnitude slower), per kernel kind, and the wall
// time of the whole simulated microbenchmark suite for one GPU. A plain main: prints one line per figure.
#include <chrono>
#include <cstdio>

#include "configs/catalog.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/warp_sim/microbenchmarks.h"
#include "models/gpu/warp_sim/warp_sim.h"

using namespace hpcsim;

namespace {

GpuSpec load(const char* name) {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar(name, SourceLoc{}), "GPU"), name);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Repeats the kernel until a second has passed and reports simulated warp instructions per second.
void rate(const GpuSpec& gpu, const char* what, const KernelProgram& k, const WarpSimOptions& options = {}) {
  std::int64_t instructions = 0;
  int runs = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    instructions += simulate_kernel(gpu, k, options).warp_instructions;
    ++runs;
    elapsed = seconds_since(t0);
  } while (elapsed < 1.0);
  std::printf("%-16s %-40s %8.1f M warp-instructions/s (%d runs, %lld instructions each)\n", gpu.name.c_str(), what,
              static_cast<double>(instructions) / elapsed / 1e6, runs, static_cast<long long>(instructions / runs));
}

KernelProgram fma_kernel(const GpuSpec& gpu) {  // ALU-bound: 64 warps per SM, 8 independent FMA chains
  KernelLaunch launch;
  launch.threads_per_block = 256;
  launch.blocks = 8LL * gpu.sm_count;
  ProgramBuilder b("fma", launch);
  b.loop(256, [&] {
    for (int c = 0; c < 8; ++c) b.fp32(1 + c, 1 + c, 20);
  });
  return b.build();
}

}  // namespace

int main() {
  for (const char* name : {"v100-sxm2-16gb", "h100-sxm5-80gb"}) {
    const GpuSpec gpu = load(name);
    rate(gpu, "fp32 fma, 8 chains, full occupancy", fma_kernel(gpu));
    rate(gpu, "triad n=2^24", triad_kernel(gpu, std::int64_t{1} << 24));
    rate(gpu, "gemm tile 4096x4096x512 fp16", gemm_tile_kernel(4096, 4096, 512, Precision::fp16));
    WarpSimOptions all;
    all.all_sms = true;
    rate(gpu, "gemm tile 4096x4096x512 fp16, all SMs", gemm_tile_kernel(4096, 4096, 512, Precision::fp16), all);
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t rows = 0;
    for (const std::string& bench : microbench_names()) {
      const auto tb = std::chrono::steady_clock::now();
      const std::size_t n = run_microbench(gpu, bench).rows.size();
      rows += n;
      std::printf("%-16s suite %-24s %6zu rows %8.3f s\n", gpu.name.c_str(), bench.c_str(), n, seconds_since(tb));
    }
    std::printf("%-16s whole simulated suite: %zu rows in %.2f s wall\n", gpu.name.c_str(), rows, seconds_since(t0));
  }
  return 0;
}

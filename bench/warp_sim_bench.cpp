// WarpSim speed: simulated warp instructions per second on one core (target: >= 50 million; cycle-level
// simulators such as Accel-Sim run orders of magnitude slower), per kernel kind, and the time of the whole
// simulated microbenchmark suite for one GPU. A plain main: prints one line per figure.
//
//   warp_sim_bench [--gpu NAME]... [--no-suite] [--digest] [--runs KERNEL N]
//
// --digest prints, instead of timings, every field of every suite kernel's result (doubles in hex, the
// trace and clock reads as a hash), so a change meant only for speed is checked by diffing two runs' output.
//
// --runs KERNEL N (fma, triad, chase, gemm, gemm-all: the rates' kernels) runs that kernel N times per GPU and
// prints the CPU seconds: a fixed amount of work, for comparing two builds on a busy machine by interleaving them.
//
// Each rate is the median of 5 trials; a trial repeats the kernel until 0.2 s of CPU time has passed. Rates
// are per second of CPU time of this process (on an idle core, its wall time; on a shared machine wall time
// also counts other programs' turns) and the wall-clock rate is printed beside it.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/warp_sim/microbenchmarks.h"
#include "models/gpu/warp_sim/warp_sim.h"

using namespace hpcsim;

namespace {

constexpr int kTrials = 5;
constexpr double kTrialSeconds = 0.2;

GpuSpec load(const std::string& name) {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar(name, SourceLoc{}), "GPU"), name);
}

struct Clocks {  // CPU time of this process and wall time, both in seconds since construction
  std::clock_t cpu0 = std::clock();
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  double cpu() const { return static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC; }
  double wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Simulated warp instructions per second: the median of kTrials trials, by CPU and by wall time.
void rate(const GpuSpec& gpu, const char* what, const KernelProgram& k, const WarpSimOptions& options = {}) {
  std::vector<double> by_cpu, by_wall;
  std::int64_t per_run = 0;
  int runs = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::int64_t instructions = 0;
    const Clocks clocks;
    do {
      per_run = simulate_kernel(gpu, k, options).warp_instructions;
      instructions += per_run;
      ++runs;
    } while (clocks.cpu() < kTrialSeconds);
    by_cpu.push_back(static_cast<double>(instructions) / clocks.cpu());
    by_wall.push_back(static_cast<double>(instructions) / clocks.wall());
  }
  std::printf("%-16s %-44s %8.1f M warp-instructions/s (wall: %.1f; median of %d trials, %d runs of %lld instructions)\n",
              gpu.name.c_str(), what, median(by_cpu) / 1e6, median(by_wall) / 1e6, kTrials, runs,
              static_cast<long long>(per_run));
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

// Every field of a result on one line: doubles as hex floats (exact), clock reads and trace spans as an
// FNV-1a hash of their bytes.
void print_digest(const std::string& tag, const WarpSimResult& r) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](const void* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      h ^= static_cast<const unsigned char*>(p)[i];
      h *= 1099511628211ULL;
    }
  };
  for (const double c : r.clock_reads) mix(&c, sizeof c);
  for (const IssueSpan& s : r.trace) {
    mix(&s.sm, sizeof s.sm);
    mix(&s.scheduler, sizeof s.scheduler);
    mix(&s.cls, sizeof s.cls);
    mix(&s.begin, sizeof s.begin);
    mix(&s.end, sizeof s.end);
  }
  std::printf("%s blocks/SM=%d sms=%d/%d blocks=%lld/%lld cycles=%lld time=%a warp_instr=%lld lanes=%lld/%lld "
              "global=%lld/%lld l1=%lld/%lld l2=%lld/%lld shared=%lld/%lld hbm=%a flops=%a cycles_by_state=",
              tag.c_str(), r.occupancy.active_blocks_per_sm, r.active_sms, r.simulated_sms,
              static_cast<long long>(r.blocks_simulated), static_cast<long long>(r.kernel_blocks),
              static_cast<long long>(r.cycles), r.time_s, static_cast<long long>(r.warp_instructions),
              static_cast<long long>(r.lane_slots), static_cast<long long>(r.active_lanes),
              static_cast<long long>(r.global_requests), static_cast<long long>(r.global_sectors),
              static_cast<long long>(r.l1_hits), static_cast<long long>(r.l1_misses), static_cast<long long>(r.l2_hits),
              static_cast<long long>(r.l2_misses), static_cast<long long>(r.shared_requests),
              static_cast<long long>(r.shared_wavefronts), r.hbm_bytes, r.flops);
  for (const std::int64_t c : r.warp_cycles) std::printf("%lld,", static_cast<long long>(c));
  std::printf(" clock_reads=%zu trace=%zu/%d hash=%016llx\n", r.clock_reads.size(), r.trace.size(),
              static_cast<int>(r.trace_truncated), static_cast<unsigned long long>(h));
}

// The whole suite with traces on (the trace path is part of the cycle loop) and each kernel's digest.
void digest(const GpuSpec& gpu) {
  WarpSimOptions options;
  options.trace = true;
  for (const std::string& bench : microbench_names()) {
    const MicrobenchRun run = run_microbench(gpu, bench, options, true);
    for (const MicrobenchRow& row : run.rows) {
      std::printf("%s %s %s %s %a %s\n", gpu.name.c_str(), row.benchmark.c_str(), row.params.c_str(), row.metric.c_str(),
                  row.value, row.unit.c_str());
    }
    for (const MicrobenchKernel& k : run.kernels) print_digest(gpu.name + " " + bench + " " + k.params, k.result);
  }
  WarpSimOptions all = options;
  all.all_sms = true;
  print_digest(gpu.name + " triad 2^22, all SMs", simulate_kernel(gpu, triad_kernel(gpu, std::int64_t{1} << 22), all));
  print_digest(gpu.name + " pointer-chase 1 MiB, all SMs", simulate_kernel(gpu, pointer_chase_kernel(1 << 20, 128, 8192), all));
}

}  // namespace

// The rates' kernels by the names --runs takes; all SMs for gemm-all.
bool named_kernel(const GpuSpec& gpu, const std::string& name, KernelProgram& k, WarpSimOptions& options) {
  options.all_sms = name == "gemm-all";
  if (name == "fma") k = fma_kernel(gpu);
  else if (name == "triad") k = triad_kernel(gpu, std::int64_t{1} << 24);
  else if (name == "chase") k = pointer_chase_kernel(std::int64_t{64} << 20, 128, 1 << 16);
  else if (name == "gemm") k = gemm_tile_kernel(4096, 4096, 512, Precision::fp16);
  else if (name == "gemm-all") k = gemm_tile_kernel(1024, 1024, 256, Precision::fp16);
  else return false;
  return true;
}

int main(int argc, char** argv) {
  std::vector<std::string> gpus;
  bool suite = true, digests = false;
  std::string runs_kernel;
  int runs = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--gpu") && i + 1 < argc) {
      gpus.emplace_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--no-suite")) {
      suite = false;
    } else if (!std::strcmp(argv[i], "--digest")) {
      digests = true;
    } else if (!std::strcmp(argv[i], "--runs") && i + 2 < argc && std::atoi(argv[i + 2]) > 0) {
      runs_kernel = argv[++i];
      runs = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: warp_sim_bench [--gpu NAME]... [--no-suite] [--digest] [--runs KERNEL N]\n");
      return 2;
    }
  }
  if (gpus.empty()) gpus = {"v100-sxm2-32gb", "h100-sxm5-80gb"};
  for (const std::string& name : gpus) {
    const GpuSpec gpu = load(name);
    if (digests) {
      digest(gpu);
      continue;
    }
    if (runs > 0) {
      KernelProgram k;
      WarpSimOptions options;
      if (!named_kernel(gpu, runs_kernel, k, options)) {
        std::fprintf(stderr, "--runs: unknown kernel '%s' (fma, triad, chase, gemm, gemm-all)\n", runs_kernel.c_str());
        return 2;
      }
      const Clocks clocks;
      std::int64_t instructions = 0;
      for (int r = 0; r < runs; ++r) instructions += simulate_kernel(gpu, k, options).warp_instructions;
      std::printf("%-16s %s x %d: %.3f s CPU, %.3f s wall, %lld warp instructions\n", gpu.name.c_str(), runs_kernel.c_str(),
                  runs, clocks.cpu(), clocks.wall(), static_cast<long long>(instructions));
      continue;
    }
    rate(gpu, "ALU: fp32 fma, 8 chains, full occupancy", fma_kernel(gpu));
    rate(gpu, "memory: triad n=2^24", triad_kernel(gpu, std::int64_t{1} << 24));
    rate(gpu, "memory: pointer-chase 64 MiB, 2^16 loads", pointer_chase_kernel(std::int64_t{64} << 20, 128, 1 << 16));
    rate(gpu, "gemm tile 4096x4096x512 fp16", gemm_tile_kernel(4096, 4096, 512, Precision::fp16));
    WarpSimOptions all;
    all.all_sms = true;
    rate(gpu, "gemm tile 1024x1024x256 fp16, all SMs", gemm_tile_kernel(1024, 1024, 256, Precision::fp16), all);
    if (!suite) continue;
    const Clocks total;
    std::size_t rows = 0;
    for (const std::string& bench : microbench_names()) {
      const Clocks one;
      const std::size_t n = run_microbench(gpu, bench).rows.size();
      rows += n;
      std::printf("%-16s suite %-24s %6zu rows %8.3f s CPU %8.3f s wall\n", gpu.name.c_str(), bench.c_str(), n, one.cpu(),
                  one.wall());
    }
    std::printf("%-16s whole simulated suite: %zu rows in %.2f s CPU, %.2f s wall\n", gpu.name.c_str(), rows, total.cpu(),
                total.wall());
  }
  return 0;
}

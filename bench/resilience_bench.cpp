// The long-run resilience Monte Carlo at the size issue 40 names: 1,000 replicas of a 54-day (failure-free
// compute) 16,384-GPU run (2,048 nodes of 8 GPUs, configs/reliability/h200-crusoe.yaml, asynchronous
// checkpoints of Llama 3.1 405B's state at 2 TB/s), once synchronous as well. Target: under 10 s.
// Prints wall time, replicas per second, interruptions and checkpoints simulated, and the run's figures.
//
// Usage (from the source root): resilience_bench [configs dir=configs] [replicas=1000]
#include <chrono>
#include <cstdio>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/resilience/resilience_config.h"

using namespace hpcsim;

namespace {

void run(const SpecCatalog& catalog, const char* label, const std::string& checkpoint, std::int64_t replicas) {
  const std::string yaml = "reliability: h200-crusoe\ncompute_time: 1296 h\ncheckpoint: " + checkpoint +
                           "\ndetection: 5 min\nrestart: 10 min\nrequeue: 30 min\nreplicas: " + std::to_string(replicas) +
                           "\nseed: 1\n";
  ResilienceJob job;
  job.nodes = 2048, job.gpus = 16384;
  job.node_leaf.assign(2048, 0);
  job.state_bytes = 405.0e9 * 14;  // Llama 3.1 405B: bf16 weights + fp32 Adam moments and master weights
  const ResilienceConfig c = parse_resilience(parse_config_text(yaml, "bench.yaml"), catalog, job);
  const auto t0 = std::chrono::steady_clock::now();
  const LongRunSummary s = simulate_long_run(c.model(1.0), c.replicas, c.seed);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-6s %lld replicas in %.3f s (%.0f replicas/s, %.0f interruptions and %.0f checkpoints simulated); "
              "MTTI %.2f h, interval %.0f s, time to train mean %.2f d (p5 %.2f, p95 %.2f), ETTR %.3f, "
              "interruptions %.1f per replica\n",
              label, static_cast<long long>(replicas), wall, static_cast<double>(replicas) / wall,
              s.interruptions * static_cast<double>(replicas), s.checkpoints * static_cast<double>(replicas), s.mtti_s / 3600,
              c.chosen_interval_s(), s.mean_wall_s / 86400, s.p5_wall_s / 86400, s.p95_wall_s / 86400, s.ettr, s.interruptions);
}

}  // namespace

int main(int argc, char** argv) {
  const SpecCatalog catalog(argc > 1 ? argv[1] : "configs");
  const std::int64_t replicas = argc > 2 ? std::stoll(argv[2]) : 1000;
  run(catalog, "async", "{mode: async, snapshot: 1 s, write_bandwidth: 2 TB/s}", replicas);
  run(catalog, "sync", "{mode: sync, write_bandwidth: 2 TB/s}", replicas);
  return 0;
}

// The scale ladder (issue 17): wall time, peak memory, events and fair-share re-fills of simulating one
// training step of Llama 3.1 405B (seq 8192) and GPT-3 175B (seq 2048) on 1,024 to 131,072 H100: DGX H100
// nodes on ib-ndr, a 3-level rail-optimized fat tree of 64-port switches (Quantum-2 QM9700; 128 ports at 131,072
// GPUs, which 64 ports cannot hold in three levels), tp 8, pp 16,
// dp = GPUs / 128, ZeRO-1, micro batch 1, 16 microbatches per replica (the 405B's 16M-token batch at 16,384
// GPUs), megatron profile, bf16. A step that does not fit in memory is still timed (fits_in_memory false).
//   scale_ladder_bench [--min-gpus N] [--max-gpus N] [--exact] [--routing ecmp|d-mod-k] [--model llama|gpt3]
// --min-gpus / --max-gpus start and stop the ladder at those sizes (the full simulation of the largest rungs
// takes minutes); --exact simulates every data-parallel group and replica (TrainingStepConfig::exact) instead of
// symmetry classes; --routing overrides ib-ndr's own (d-mod-k) as cluster.routing does (ecmp: the
// routing every rung had before InfiniBand's destination-based routing was modelled). Each line: the step
// time, events, solver re-solves and re-filled flows, fair-share resources, wall and CPU seconds, peak RSS.
// Measured 2026-12-06 on a 2-core machine (CPU s, medians of 3; docs/validation.md has the history): Llama 3.1
// 405B 16,384 GPUs 0.12 s, 65,536 0.48 s, 131,072 0.98 s / 414 MiB; GPT-3 175B 131,072 1.0 s / 420 MiB.
// Earlier, 2026-12-03 (CPU s): Llama 3.1 405B
// 16,384 GPUs 0.28 s (median of 3), 65,536 1.3 s, 131,072 3.4 s / 548 MiB; GPT-3 175B 131,072 3.6 s / 571 MiB
// (at 2ca93c1: 1.15 s, 10.7 s, 41 s / 762 MiB; 38 s / 783 MiB).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/network/routing.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/training/training_step_job.h"

using namespace hpcsim;

namespace {

// CPU seconds of this process: on a shared machine wall time also counts other people's work.
double cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// Three levels of k-port switches hold k^3 / 4 ports: 64-port Quantum-2 switches reach 65,536 GPUs; the
// 131,072-GPU rung takes 128-port switches (Quantum-X800 class, here at ib-ndr's 400 Gb/s per port).
int radix_for(int gpus) { return gpus <= 64 * 64 * 64 / 4 ? 64 : 128; }

std::string scenario_yaml(const std::string& model, int seq_len, int gpus, const std::string& routing) {
  const int dp = gpus / 128;
  return "name: ladder\n"
         "cluster: {node: dgx-h100, nodes: " + std::to_string(gpus / 8) + ", network: ib-ndr, " +
         (routing.empty() ? "" : "routing: " + routing + ", ") +
         "topology: {kind: rail-optimized, levels: 3, radix: " + std::to_string(radix_for(gpus)) + "}}\n"
         "workload: {model: " + model + ", seq_len: " + std::to_string(seq_len) +
         ", micro_batch: 1, global_batch: " + std::to_string(16 * dp) +
         ", precision: bf16, optimizer: adam, framework: megatron}\n"
         "parallelism: {tp: 8, pp: 16, dp: " + std::to_string(dp) + ", zero: 1, schedule: 1f1b}\n";
}

void rung(const char* label, const std::string& model, int seq_len, int gpus, bool exact, const std::string& routing) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_s();
  const TrainingScenario s = parse_training_scenario(parse_config_text(scenario_yaml(model, seq_len, gpus, routing), "ladder.yaml"), catalog,
                                    "ladder.yaml");
  TrainingStepConfig run = training_step_config(s);
  run.exact = exact;
  Platform platform(s.cluster);
  const JobId job = platform.attach(s.workload.built.name);
  TrainingStepJob step(platform, job, s.workload.built, run);
  step.start();
  platform.sim().run();
  const TrainingStepReport rep = step.report();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-14s gpus %6d  step %.9f s  fits %d  events %9llu  solves %7llu  refilled %11llu  "
              "resources %8zu  wall %8.3f s  cpu %8.3f s  peak RSS %6.0f MiB\n",
              label, gpus, rep.result.step_time_s, rep.result.fits_in_memory ? 1 : 0,
              static_cast<unsigned long long>(rep.result.events),
              static_cast<unsigned long long>(platform.fair_share().solves()),
              static_cast<unsigned long long>(platform.fair_share().refilled_flows()),
              platform.fair_share().resource_count(), wall, cpu_s() - cpu0,
              peak_rss_mib());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int min_gpus = 0, max_gpus = 131072;
  bool exact = false;
  std::string only, routing;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--min-gpus") && i + 1 < argc) {
      min_gpus = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--max-gpus") && i + 1 < argc) {
      max_gpus = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--routing") && i + 1 < argc && kRoutingNames.parse(argv[i + 1])) {
      routing = argv[++i];
    } else if (!std::strcmp(argv[i], "--exact")) {
      exact = true;
    } else if (!std::strcmp(argv[i], "--model") && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--min-gpus N] [--max-gpus N] [--exact] [--routing ecmp|d-mod-k] [--model llama|gpt3]\n",
                   argv[0]);
      return 2;
    }
  }
  for (int gpus : {1024, 4096, 16384, 65536, 131072}) {
    if (gpus > max_gpus) break;
    if (gpus < min_gpus) continue;
    if (only.empty() || only == "llama") rung("llama3.1-405b", "llama3.1-405b", 8192, gpus, exact, routing);
    if (only.empty() || only == "gpt3") rung("gpt3-175b", "gpt3-175b", 2048, gpus, exact, routing);
  }
  return 0;
}

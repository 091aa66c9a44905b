// The data-parallel scale rungs (issue 34, item 8): wall time, CPU time and peak memory of simulating one
// step of the quickstart (examples/quickstart.yaml: GPT 1.3B, pure data parallel over DGX A100 nodes on
// ib-hdr) at 2,048 and 16,384 nodes, as `hpcsim run examples/quickstart.yaml --set cluster.nodes=N` does.
// One data-parallel group spans every GPU, and each of the step's 74 gradient buckets is an all-reduce
// over it: this is where cost grows with the group, unlike the 3D-parallel rungs of scale_ladder_bench.
//   data_parallel_scale_bench [--nodes N,N,...] [--run | --assumptions]     (default 2048,16384)
// --run: each rung as `hpcsim run --no-db` simulates it (driver/training_scenario_run.h) but without its
// assumptions list; --assumptions: with it (driver/assumptions.h), as `hpcsim run` does. Their difference
// is what the list's alternatives cost.
// Each line: the step time, events, solver re-solves and re-filled flows, wall and CPU seconds, peak RSS.
// Measured 2026-12-05 on the shared 2-core machine (load 16-20; CPU s = user + system, median of 3, with the
// build before at 433ac29 in the same loop): 2,048 nodes 0.58 s / 54 MiB (before 1.73 s / 138 MiB); 16,384
// nodes 2.18 s / 250 MiB (before 6.66 s / 549 MiB); step times unchanged (0.498150029 s, 3.507046175 s).
// --run / --assumptions at 16,384 nodes, 2026-12-05 (load 11-13, alternated, median of 5): 2.60 s / 2.22 s
// CPU, 250 MiB each: the list's one alternative there (attention) is estimated from one replica.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "driver/prediction_interval.h"
#include "driver/training_scenario_run.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/scenario/training_scenario.h"
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

void rung(int nodes) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string file = std::string(HPCSIM_SOURCE_DIR) + "/examples/quickstart.yaml";
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_s();
  const TrainingScenario s =
      parse_training_scenario(load_config(file, {"cluster.nodes=" + std::to_string(nodes)}), catalog, file);
  const TrainingStepConfig run = training_step_config(s);
  Platform platform(s.cluster);
  const JobId job = platform.attach(s.workload.built.name);
  TrainingStepJob step(platform, job, s.workload.built, run);
  step.start();
  platform.sim().run();
  const TrainingStepReport rep = step.report();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("quickstart  nodes %6d  gpus %7d  step %.9f s  buckets %3d  events %9llu  solves %7llu  "
              "refilled %11llu  wall %8.3f s  cpu %8.3f s  peak RSS %6.0f MiB\n",
              nodes, rep.result.gpus, rep.result.step_time_s, rep.gradient_buckets,
              static_cast<unsigned long long>(rep.result.events),
              static_cast<unsigned long long>(platform.fair_share().solves()),
              static_cast<unsigned long long>(platform.fair_share().refilled_flows()), wall, cpu_s() - cpu0,
              peak_rss_mib());
  std::fflush(stdout);
}

// As `hpcsim run` does (without a database): the step, its interval and, with `assumptions`, the list.
void run_rung(int nodes, bool assumptions) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const IntervalTable intervals = IntervalTable::load(HPCSIM_SOURCE_CONFIG_DIR);
  const std::string file = std::string(HPCSIM_SOURCE_DIR) + "/examples/quickstart.yaml";
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_s();
  const ConfigNode root = load_config(file, {"cluster.nodes=" + std::to_string(nodes)});
  const TrainingScenario s = parse_training_scenario(root, catalog, file);
  const TrainingScenarioRun run = run_training_scenario(s, root, intervals, "bench", false, false, assumptions);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("run%-12s nodes %6d  step %.9f s  assumptions %d  wall %8.3f s  cpu %8.3f s  peak RSS %6.0f MiB\n",
              assumptions ? " +assumptions" : "", nodes, run.step.result.step_time_s,
              run.assumptions ? static_cast<int>(run.assumptions->size()) : -1, wall, cpu_s() - cpu0, peak_rss_mib());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> nodes{2048, 16384};
  int run = 0;  // 0: the bare step; 1: as `hpcsim run` without the assumptions list; 2: with it
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--run")) {
      run = 1;
    } else if (!std::strcmp(argv[i], "--assumptions")) {
      run = 2;
    } else if (!std::strcmp(argv[i], "--nodes") && i + 1 < argc) {
      nodes.clear();
      std::stringstream list(argv[++i]);
      for (std::string n; std::getline(list, n, ',');) nodes.push_back(std::atoi(n.c_str()));
    } else {
      std::fprintf(stderr, "usage: %s [--nodes N,N,...] [--run | --assumptions]\n", argv[0]);
      return 2;
    }
  }
  for (const int n : nodes) {
    if (n < 1) {
      std::fprintf(stderr, "--nodes: %d is not a node count\n", n);
      return 2;
    }
    if (run == 0) rung(n);
    else run_rung(n, run == 2);
  }
  return 0;
}

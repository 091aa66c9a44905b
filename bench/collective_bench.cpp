// 1 GiB ring all-reduce over 1,024 and 8,192 GPUs (DGX A100 nodes, 8 HDR rails, rail-optimized 3-level
// fat-tree of radix-64 switches): wall time, peak memory and flow events per second.
//
// Usage (from the source root): collective_bench [configs dir=configs] [--full] [--gpus N]
// --full also runs the 1,024-GPU case with every step simulated in full (no replay), to show the replay
// gives the same answer. --gpus N runs only N GPUs (so /usr/bin/time -v gives that size's peak memory). "Flow events" are flow arrivals + departures on the solver; "represented" counts
// the flows of replayed steps too (what a simulator without replay would have to process).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/collectives/collective_runner.h"

using namespace hpcsim;

namespace {

long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

void run(const NodeSpec& node, const NetworkSpec& net, int gpus, bool replay) {
  const auto t0 = std::chrono::steady_clock::now();
  Simulator sim;
  FairShare fs(sim);
  TopologySpec topo;
  topo.kind = TopologyKind::rail_optimized;
  topo.levels = 3;
  topo.radix = 64;
  const ClusterFabric fabric(fs, node, gpus / node.gpus, node.gpus, net, topo);
  const auto t1 = std::chrono::steady_clock::now();
  CollectiveRequest req;
  req.algorithm = CollectiveAlgorithm::ring;
  req.bytes = 1024.0 * 1024 * 1024;
  req.replay_repeated_steps = replay;
  CollectiveStats stats;
  start_collective(sim, fs, fabric, CollectiveGroup::whole(fabric), req, [&](const CollectiveStats& s) { stats = s; });
  sim.run();
  const auto t2 = std::chrono::steady_clock::now();
  const double build_s = std::chrono::duration<double>(t1 - t0).count();
  const double run_s = std::chrono::duration<double>(t2 - t1).count();
  const double simulated = (stats.end - stats.start).to_seconds();
  const double busbw = req.bytes / simulated * 2.0 * (gpus - 1) / gpus;
  std::printf("%6d GPUs %-6s: simulated %.6f s (busbw %.1f GB/s); wall %.3f s (fabric %.3f s + collective %.3f s); "
              "peak RSS %.1f MiB; %d steps (%d replayed); %llu flows simulated, %llu represented; "
              "%.3g flow events/s (%.3g represented/s); %llu engine events; %llu solver re-solves (%llu flows re-filled)\n",
              gpus, replay ? "replay" : "full", simulated, busbw / 1e9, build_s + run_s, build_s, run_s,
              peak_rss_kib() / 1024.0, stats.steps, stats.steps_replayed,
              static_cast<unsigned long long>(stats.flows_simulated),
              static_cast<unsigned long long>(stats.flows_represented), 2.0 * stats.flows_simulated / run_s,
              2.0 * stats.flows_represented / run_s, static_cast<unsigned long long>(sim.events_processed()),
              static_cast<unsigned long long>(fs.solves()), static_cast<unsigned long long>(fs.refilled_flows()));
}

}  // namespace

int main(int argc, char** argv) try {
  std::string dir = "configs";
  bool full = false;
  int only = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--full") == 0) {
      full = true;
    } else if (std::strcmp(argv[i], "--gpus") == 0 && i + 1 < argc) {
      only = std::atoi(argv[++i]);
      if (only < 1) {
        std::fprintf(stderr, "collective_bench: --gpus needs a positive count\n");
        return 2;
      }
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr, "usage: collective_bench [CONFIG_DIR] [--gpus N] [--full]\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    } else {
      dir = argv[i];
    }
  }
  const SpecCatalog catalog(dir);
  const NodeSpec node =
      parse_node_spec(load_config(dir + "/nodes/dgx-a100-80gb.yaml", {}), "dgx-a100-80gb", catalog);
  const NetworkSpec net = parse_network_spec(load_config(dir + "/networks/ib-hdr.yaml", {}), "ib-hdr");
  if (only > 0) {
    run(node, net, only, !full);
    return 0;
  }
  run(node, net, 1024, true);
  run(node, net, 8192, true);
  if (full) run(node, net, 1024, false);
  return 0;
} catch (const std::exception& e) {  // a missing or bad config folder
  std::fprintf(stderr, "collective_bench: %s\n", e.what());
  return 2;
}

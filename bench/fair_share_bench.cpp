// FairShare under churn: 10,000 concurrent flows over 1,000 links, each crossing 3-5 random links.
// Every completion starts a replacement flow, so the population stays at 10,000; the figure is flow
// arrivals + departures handled per second of wall clock (departure and its replacement arrival are
// solved together, as a collective's simultaneous changes would be).
//
// Usage: fair_share_bench [completions=200000] [flows=10000] [links=1000] [pod_links=0]
// pod_links = 0 draws each flow's links from all links: one giant connected component, the worst case
// for an exact solver. pod_links = k splits the links into pods of k and keeps each flow inside one pod
// (independent jobs or racks), so components stay small and component-local re-solves pay off.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <random>
#include <vector>

#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

namespace {

using hpcsim::FairShare;
using hpcsim::FlowId;
using hpcsim::ResourceId;
using hpcsim::Simulator;

struct Churn {
  Simulator sim;
  FairShare fs{sim};
  std::mt19937_64 rng{0x5eed'f10e'5ULL};  // fixed seed: every run does the same work
  std::size_t links = 0;
  std::size_t pod_links = 0;
  std::uint64_t completions = 0;
  std::uint64_t target = 0;
  std::vector<ResourceId> path;
  std::uint64_t digest = 0xcbf29ce484222325ULL;  // FNV-1a over completion times: equal runs, equal digest

  void start_one() {
    path.clear();
    const std::size_t hops = 3 + rng() % 3;
    const std::size_t span = pod_links > 0 ? pod_links : links;
    const std::size_t base = pod_links > 0 ? (rng() % (links / pod_links)) * pod_links : 0;
    while (path.size() < hops) {
      const auto r = static_cast<ResourceId>(base + rng() % span);
      bool repeated = false;
      for (const ResourceId p : path) repeated = repeated || p == r;
      if (!repeated) path.push_back(r);
    }
    const double bytes = 1e6 * static_cast<double>(1 + rng() % 64);  // 1-64 MB
    fs.start_flow(path, bytes, [this](FlowId) { on_done(); });
  }
  void on_done() {
    digest = (digest ^ static_cast<std::uint64_t>(sim.now().picoseconds())) * 0x100000001b3ULL;
    if (++completions >= target) {
      sim.stop();
      return;
    }
    start_one();
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t target = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200'000;
  const std::size_t flows = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000;
  const std::size_t links = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1'000;
  const std::size_t pod_links = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 0;
  if (pod_links != 0 && (pod_links < 5 || links % pod_links != 0)) {
    std::fprintf(stderr, "pod_links must be >= 5 and divide links\n");
    return 2;
  }

  Churn c;
  c.links = links;
  c.pod_links = pod_links;
  c.target = target;
  const double speeds[] = {12.5e9, 25e9, 50e9};  // mixed link generations, bytes/s
  for (std::size_t i = 0; i < links; ++i) c.fs.add_resource(speeds[c.rng() % 3]);

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < flows; ++i) c.start_one();
  c.fs.settle();  // the initial full solve, timed apart from the churn
  const auto t1 = Clock::now();
  const std::uint64_t solves0 = c.fs.solves();
  const std::uint64_t refilled0 = c.fs.refilled_flows();
  const std::clock_t cpu1 = std::clock();
  c.sim.run();
  const auto t2 = Clock::now();
  // CPU time too: on a shared machine wall clock includes time spent waiting for a core.
  const double churn_cpu_s = static_cast<double>(std::clock() - cpu1) / CLOCKS_PER_SEC;

  const double setup_s = std::chrono::duration<double>(t1 - t0).count();
  const double churn_s = std::chrono::duration<double>(t2 - t1).count();
  const double changes = 2.0 * static_cast<double>(c.completions);  // each departure + its arrival
  const double solves = static_cast<double>(c.fs.solves() - solves0);
  std::printf("%s\n", pod_links ? "links drawn within pods" : "links drawn from all links (one component)");
  std::printf("flows %zu, links %zu, completions %llu (simulated %.6f s)\n", flows, links,
              static_cast<unsigned long long>(c.completions), c.sim.now().to_seconds());
  std::printf("initial solve of %zu flows: %.3f ms\n", flows, setup_s * 1e3);
  std::printf("churn: %.3f s wall, %.0f arrivals+departures/s, %.2f us per re-solve\n", churn_s,
              changes / churn_s, churn_s / solves * 1e6);
  std::printf("churn CPU time: %.3f s, %.0f arrivals+departures per CPU-second\n", churn_cpu_s,
              changes / churn_cpu_s);
  std::printf("re-solves %.0f, flows re-filled per re-solve %.1f (of %zu)\n", solves,
              static_cast<double>(c.fs.refilled_flows() - refilled0) / solves, flows);
  // Identical on every build of an unchanged solver: a speed-up that alters results shows here.
  std::printf("completion-time digest %016llx\n", static_cast<unsigned long long>(c.digest));
  return 0;
}

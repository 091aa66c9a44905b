// PHOLD-style engine benchmark: N logical processes, each event schedules exactly one more event at a
// random future time on a random process, so the number of pending events stays at N.
// Run: build/bench/engine_phold_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "sim-core/random.h"
#include "sim-core/simulator.h"

namespace {

using hpcsim::Simulator;
using hpcsim::Time;

struct Phold {
  Simulator sim;
  hpcsim::SplitMix64 rng{0x9E3779B97F4A7C15ULL};  // cheap and reproducible
  std::vector<std::uint64_t> handled;  // events per logical process (keeps the work observable)

  void schedule_next() {
    const std::uint32_t lp = static_cast<std::uint32_t>(rng.next() % handled.size());
    // Uniform delay in [1 ns, 1 us): a wide spread keeps the heap well mixed.
    const Time delay = Time::ps(1000 + static_cast<std::int64_t>(rng.next() % 999'000));
    sim.schedule_in(delay, [this, lp] {
      ++handled[lp];
      schedule_next();
    });
  }
  explicit Phold(std::size_t lps) : handled(lps, 0) {
    sim.reserve(lps + 1);
    for (std::size_t i = 0; i < lps; ++i) schedule_next();
  }
};

long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * 4096;
}

// The real measurement: each iteration processes a fixed batch of events through run() with a
// budget enforced by an event that stops the simulator.
void BM_PholdEvents(benchmark::State& state) {
  const auto lps = static_cast<std::size_t>(state.range(0));
  const long before = resident_bytes();
  Phold model(lps);
  const long after = resident_bytes();
  constexpr std::uint64_t kBatch = 1'000'000;
  std::uint64_t total = 0;
  for (auto _ : state) {
    const std::uint64_t first = model.sim.events_processed();
    while (model.sim.events_processed() < first + kBatch) {
      // Run in slices of simulated time; a slice holds many events at this density.
      model.sim.run_until(model.sim.now() + Time::ns(50));
    }
    total += model.sim.events_processed() - first;
  }
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
  state.counters["pending"] = static_cast<double>(model.sim.pending());
  // Resident memory growth while filling the queue (page-granular: meaningful for large N only) and the
  // engine's own accounting of what its queue and pools hold.
  state.counters["rss_bytes_per_pending"] = static_cast<double>(after - before) / static_cast<double>(lps);
  state.counters["engine_bytes_per_pending"] =
      static_cast<double>(model.sim.memory_bytes()) / static_cast<double>(model.sim.pending());
}

}  // namespace

BENCHMARK(BM_PholdEvents)->Arg(1'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->MinTime(2.0);

BENCHMARK_MAIN();

// Trace replay speed: a synthetic SPMD time-independent trace (per iteration: compute, a halo exchange
// with both ring neighbours by isend/irecv/waitall, and every 10th iteration a small allreduce) replayed
// (BM_replay, 4 messages in 6 actions) or an NPB-like compute/collective trace (BM_replay_collectives)
// on a SimGrid cluster platform (hosts on private links and a backbone) with SMPI's model. Reports
// trace actions replayed per second of CPU (items_per_second), parsing included and not.
// Run: build/bench/mpi_replay_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include "models/mpi/simgrid_platform.h"
#include "workloads/mpi_replay/ti_replay.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace {

using namespace hpcsim;

// NPB-like (the shape of SimGrid's 32-rank replay_multiple traces): compute phases, small bcasts,
// barriers and allreduces; no point-to-point.
std::string collective_trace(int ranks, int iterations) {
  std::string t;
  for (int r = 0; r < ranks; ++r) {
    const std::string R = std::to_string(r) + " ";
    t += R + "init\n";
    for (int i = 0; i < iterations; ++i) {
      t += R + "compute 127149\n" + R + "compute 2652\n" + R + "comm_size " + std::to_string(ranks) + "\n";
      t += R + "bcast 1\n" + R + "compute 25816\n" + R + "barrier\n" + R + "allreduce 1 5339502\n";
    }
    t += R + "finalize\n";
  }
  return t;
}

std::string spmd_trace(int ranks, int iterations) {
  std::string t;
  t.reserve(static_cast<std::size_t>(ranks) * iterations * 120);
  for (int r = 0; r < ranks; ++r) {
    const int left = (r + ranks - 1) % ranks, right = (r + 1) % ranks;
    const std::string R = std::to_string(r) + " ";
    t += R + "init\n";
    for (int i = 0; i < iterations; ++i) {
      t += R + "compute 2e7\n";
      t += R + "irecv " + std::to_string(left) + " 0 65536\n";
      t += R + "irecv " + std::to_string(right) + " 1 65536\n";
      t += R + "isend " + std::to_string(right) + " 0 65536\n";
      t += R + "isend " + std::to_string(left) + " 1 65536\n";
      t += R + "waitall\n";
      if (i % 10 == 9) t += R + "allreduce 8 1e5\n";
    }
    t += R + "finalize\n";
  }
  return t;
}

SimgridPlatform platform(int hosts) {
  return parse_simgrid_platform("<platform version='4.1'><cluster id='c' prefix='n' radical='0-" +
                                    std::to_string(hosts - 1) +
                                    "' speed='10Gf' bw='12.5GBps' lat='1us' bb_bw='400GBps' bb_lat='0.5us'/></platform>",
                                "bench.xml");
}

long resident_kib() {
  std::ifstream statm("/proc/self/statm");
  long total = 0, resident = 0;
  statm >> total >> resident;
  return resident * 4;
}

void replay(benchmark::State& state, bool include_parse, bool halo = true) {
  const int ranks = static_cast<int>(state.range(0));
  const int iterations = static_cast<int>(state.range(1));
  const std::string text = halo ? spmd_trace(ranks, iterations) : collective_trace(ranks, iterations);
  const TiTrace parsed = parse_ti_trace(text, "bench.txt");
  std::uint64_t actions = 0;
  double simulated = 0;
  for (auto _ : state) {
    TiTrace local;
    const TiTrace* t = &parsed;
    if (include_parse) {
      local = parse_ti_trace(text, "bench.txt");
      t = &local;
    }
    SimgridMachine m(platform(ranks));
    ReplayOptions o;
    o.model = smpi_message_model();
    for (int r = 0; r < ranks; ++r) o.rank_host.push_back(r);
    const ReplayResult res = replay_ti_trace(*t, m, o);
    actions += res.actions;
    simulated = res.time_s;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(actions));
  state.counters["actions"] = static_cast<double>(parsed.total_actions());
  state.counters["simulated_s"] = simulated;
  state.counters["rss_MiB"] = resident_kib() / 1024.0;
}

void BM_replay(benchmark::State& s) { replay(s, false); }
void BM_parse_and_replay(benchmark::State& s) { replay(s, true); }
void BM_replay_collectives(benchmark::State& s) { replay(s, false, false); }

BENCHMARK(BM_replay)->Args({64, 2000})->Args({256, 400})->Args({1024, 100})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_replay_collectives)->Args({32, 5000})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_parse_and_replay)->Args({64, 2000})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();

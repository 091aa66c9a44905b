// Kineto trace import speed: a synthetic PyTorch profiler trace of 100,000 kernels (two streams, a
// cudaLaunchKernel host call per kernel, a CPU op per four kernels with recorded shapes, a Stream Wait Event
// every 100 kernels), written once as JSON, then read, checked and replayed as recorded (the work of
// `hpcsim import kineto TRACE`) per iteration. The issue's bound: under 2 s per import and replay.
// Run: build/bench/kineto_import_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <string>

#include "configs/json_writer.h"
#include "workloads/trace/kineto_graph.h"
#include "workloads/trace/kineto_occupancy.h"
#include "workloads/trace/kineto_trace.h"

namespace {

using namespace hpcsim;

std::string event(const std::string& cat, const std::string& name, long long ts, long long dur, const std::string& args) {
  return json::Line::object()
      .field("ph", json::quote("X"))
      .field("cat", json::quote(cat))
      .field("name", json::quote(name))
      .field("pid", "1")
      .field("tid", "1")
      .field("ts", json::integer(ts))
      .field("dur", json::integer(dur))
      .field("args", args)
      .str();
}

// The trace text: kernels of 5-40 us, launched 8 us apart; stream 7 carries 3 of every 4.
std::string synthetic_trace(int kernels) {
  std::string t = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8, )"
                  R"("computeMinor": 0, "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536, "warpSize": 32, )"
                  R"("sharedMemPerMultiprocessor": 167936, "numSms": 108}], "traceEvents": [)";
  t.reserve(static_cast<std::size_t>(kernels) * 900);
  long long host = 1'000'000, gpu[2] = {1'000'000, 1'000'000};
  bool first = true;
  auto add = [&](const std::string& e) {
    t += first ? "\n" : ",\n";
    t += e;
    first = false;
  };
  for (int k = 0; k < kernels; ++k) {
    const long long corr = k + 1;
    const int s = k % 4 == 3 ? 1 : 0;
    const long long dur = 5 + (k * 7919) % 36;
    if (k % 4 == 0) {
      add(event("cpu_op", "aten::mm", host, 30,
                json::Line::object()
                    .field("External id", json::integer(corr))
                    .field("Input Dims", "[[512, 1024], [1024, 256]]")
                    .field("Input type", json::Line::array().item(json::quote("float")).item(json::quote("float")).str())
                    .str()));
    }
    add(event("cuda_runtime", "cudaLaunchKernel", host, 4,
              json::Line::object().field("External id", json::integer(corr - k % 4)).field("correlation", json::integer(corr)).str()));
    const long long start = std::max(host + 6, gpu[s]);
    gpu[s] = start + dur;
    add(event("kernel", k % 4 == 0 ? "ampere_sgemm_128x64_nn" : "void at::native::vectorized_elementwise_kernel<4>", start, dur,
              json::Line::object()
                  .field("External id", json::integer(corr - k % 4))
                  .field("device", "0")
                  .field("stream", s ? "20" : "7")
                  .field("correlation", json::integer(corr))
                  .field("registers per thread", k % 4 == 0 ? "128" : "32")
                  .field("shared memory", k % 4 == 0 ? "49152" : "0")
                  .field("grid", "[1024, 1, 1]")
                  .field("block", "[256, 1, 1]")
                  .field("est. achieved occupancy %", k % 4 == 0 ? "13" : "100")
                  .str()));
    if (k % 100 == 99) {
      add(event("cuda_sync", "Stream Wait Event", host, 1,
                json::Line::object()
                    .field("cuda_sync_kind", json::quote("Stream Wait Event"))
                    .field("wait_on_stream", "20")
                    .field("stream", "7")
                    .field("device", "0")
                    .field("correlation", json::integer(corr))
                    .str()));
    }
    host += 8;
  }
  t += "\n]}\n";
  return t;
}

const std::string& trace_file() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() / ("hpcsim-kineto-100k-" + std::to_string(::getpid()) + ".json")).string();
    std::ofstream(p) << synthetic_trace(100'000);
    return p;
  }();
  return path;
}

void BM_import_and_replay_100k(benchmark::State& state) {
  const std::string& path = trace_file();
  std::int64_t kernels = 0;
  for (auto _ : state) {
    const KinetoTrace t = read_kineto_trace(path);
    const KinetoRecorded rec = kineto_recorded(t);
    const OccupancyCheck occ = check_occupancy(t);
    const TraceReplayResult r = replay_trace(kineto_graph(t, recorded_durations(t), kineto_launch_latency_s(t)));
    benchmark::DoNotOptimize(r.makespan_s + occ.kernels_equal);
    kernels = rec.kernels;
  }
  state.counters["kernels"] = static_cast<double>(kernels);
  state.SetItemsProcessed(state.iterations() * kernels);
}
BENCHMARK(BM_import_and_replay_100k)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();

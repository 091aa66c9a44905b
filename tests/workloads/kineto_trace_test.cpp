// Kineto (PyTorch profiler) trace import: the HolisticTraceAnalysis fixtures (tests/data/traces/kineto,
// MIT), the graph, the replay as recorded, the occupancy check, rescaling, and malformed input.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <string>
#include <zlib.h>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/config_node.h"
#include "configs/loader.h"
#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/gpu/gpu_spec.h"
#include "models/platform/cluster_config.h"
#include "models/platform/platform.h"
#include "workloads/trace/kernel_rescale.h"
#include "workloads/trace/kineto_graph.h"
#include "workloads/trace/kineto_occupancy.h"
#include "workloads/trace/kineto_trace.h"

using namespace hpcsim;

namespace {

std::string fixture(const std::string& name) { return std::string(HPCSIM_TEST_DATA_DIR) + "/traces/kineto/" + name; }

const std::string kA100 = "benchmark_result_493459_1694039959_trace.json.gz";
const std::string kAdd = "benchmark_simple_add_trace.json.gz";
const std::string kMi250 = "mi250_minitoy_train_ROCm6_2_kineto.json.gz";
const std::string kTriton = "triton_example.json.gz";

GpuSpec gpu(const std::string& name) {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar(name, SourceLoc{}), "GPU"), name);
}

std::string temp_file(const std::string& name, const std::string& content) {
  const std::string path = (std::filesystem::temp_directory_path() / ("hpcsim-kineto-" + std::to_string(::getpid()) + "-" + name)).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string gunzipped(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buf[4096];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

}  // namespace

// Counts from the files themselves (python's json module over traceEvents, cat kernel / gpu_memcpy /
// gpu_memset with ph X): every one is read.
TEST_CASE("every kernel, memcpy and memset of the Kineto fixtures is read", "[trace]") {
  struct Case {
    std::string file;
    std::int64_t kernels, memcpys, memsets;
    int streams;
  };
  for (const Case& c : {Case{kA100, 79, 16, 3, 2}, Case{kAdd, 4, 0, 0, 1}, Case{kMi250, 14, 2, 0, 1}, Case{kTriton, 1, 0, 0, 1}}) {
    CAPTURE(c.file);
    const KinetoTrace t = read_kineto_trace(fixture(c.file));
    const KinetoRecorded r = kineto_recorded(t);
    CHECK(r.kernels == c.kernels);
    CHECK(r.memcpys == c.memcpys);
    CHECK(r.memsets == c.memsets);
    CHECK(r.streams == c.streams);
    for (const GpuActivity& a : t.activities) CHECK(a.launch_s.has_value());  // every activity's host call found
  }
}

TEST_CASE("a Kineto kernel keeps its launch, resources, stream and CPU op", "[trace]") {
  const KinetoTrace t = read_kineto_trace(fixture(kA100));
  CHECK(t.device.name == "NVIDIA A100-PG509-200");
  CHECK(t.device.sm_count == 108);
  CHECK(t.device.compute_major == 8);
  CHECK(t.device_count == 8);
  CHECK(t.rank == 0);
  const GpuActivity& first = t.activities.front();  // the first GPU activity: a pageable HtoD copy
  CHECK(first.kind == GpuActivityKind::memcpy);
  CHECK(first.copy_kind == "HtoD");
  CHECK(first.bytes == 92928);
  CHECK(first.start_s == 0);
  CHECK(first.duration_s == Approx(11e-6));
  const auto sgemm = std::find_if(t.activities.begin(), t.activities.end(),
                                  [](const GpuActivity& a) { return a.name == "ampere_sgemm_32x32_sliced1x4_tn" && a.grid[2] == 6; });
  REQUIRE(sgemm != t.activities.end());
  CHECK(sgemm->grid == std::array<int, 3>{32, 4, 6});
  CHECK(sgemm->block == std::array<int, 3>{128, 1, 1});
  CHECK(sgemm->registers_per_thread == 86);
  CHECK(sgemm->smem_per_block == 32768);
  CHECK(sgemm->est_occupancy_percent == 25);
  CHECK(sgemm->stream == 7);
  // This trace's kernels carry their launch's correlation id as external id: the op is the innermost one on
  // the launching thread around the cudaLaunchKernel (aten::linear -> aten::addmm).
  REQUIRE(sgemm->cpu_op >= 0);
  CHECK(t.cpu_ops[static_cast<std::size_t>(sgemm->cpu_op)].name == "aten::addmm");
  // The ROCm trace recorded shapes: an addmm's inputs.
  const KinetoTrace amd = read_kineto_trace(fixture(kMi250));
  CHECK(amd.device.id == 2);
  const auto gemm = std::find_if(amd.activities.begin(), amd.activities.end(), [](const GpuActivity& a) { return a.name.rfind("Cijk_", 0) == 0; });
  REQUIRE(gemm != amd.activities.end());
  REQUIRE(gemm->cpu_op >= 0);
  const KinetoCpuOp& op = amd.cpu_ops[static_cast<std::size_t>(gemm->cpu_op)];
  CHECK(op.name == "aten::addmm");
  CHECK(op.input_dims.size() >= 3);
}

TEST_CASE("cross-stream waits become dependencies of the trace's graph", "[trace]") {
  const KinetoTrace t = read_kineto_trace(fixture(kA100));
  CHECK(t.waits.size() == 20);  // "Stream Wait Event" records
  const KinetoRecorded r = kineto_recorded(t);
  CHECK(r.cross_stream_waits > 0);
  const TraceGraph g = kineto_graph(t, recorded_durations(t), kineto_launch_latency_s(t));
  REQUIRE(g.deps.size() == static_cast<std::size_t>(r.cross_stream_waits));
  for (const auto& [before, after] : g.deps) {
    CHECK(g.ops[before].stream != g.ops[after].stream);
    // The recording honoured it: the dependent started after its dependency ended.
    CHECK(t.activities[after].start_s >= t.activities[before].start_s + t.activities[before].duration_s - 1e-9);
  }
}

TEST_CASE("a replay as recorded reproduces each fixture's GPU busy time within 2 %", "[trace]") {
  for (const std::string& f : {kA100, kAdd, kMi250, kTriton}) {
    CAPTURE(f);
    const KinetoTrace t = read_kineto_trace(fixture(f));
    const KinetoRecorded rec = kineto_recorded(t);
    const TraceReplayResult r = replay_trace(kineto_graph(t, recorded_durations(t), kineto_launch_latency_s(t)));
    CHECK(r.busy_s == Approx(rec.busy_s).epsilon(0.02));
    CHECK(r.makespan_s <= rec.span_s * 1.02);  // released no later than recorded, never slower
    CHECK(r.makespan_s >= rec.busy_s - 1e-12);
  }
}

TEST_CASE("the stated occupancy equals hpcsim's, or the difference is Kineto's refused opt-in", "[trace]") {
  const KinetoTrace t = read_kineto_trace(fixture(kA100));
  const OccupancyCheck c = check_occupancy(t);
  CHECK(c.compute_capability == "8.0");
  CHECK(c.kernels_checked == 79);
  std::int64_t differing = 0;
  for (const OccupancyCheckRow& row : c.rows) {
    CAPTURE(row.kernel, row.stated_percent, row.smem_per_block);
    REQUIRE(row.ours_percent.has_value());
    if (*row.ours_percent == static_cast<int>(row.stated_percent)) continue;
    differing += row.kernels;
    CHECK(row.stated_percent == 0);
    CHECK(row.smem_per_block > 48 * 1024);
    CHECK(row.note.find("opting in") != std::string::npos);
  }
  CHECK(differing == 6);  // the six 252-register kernels with 67,584 B of shared memory
  CHECK(c.kernels_equal == 73);
  // The Triton kernel: one block on 108 SMs states 0 %, as ours.
  const OccupancyCheck tri = check_occupancy(read_kineto_trace(fixture(kTriton)));
  CHECK(tri.kernels_equal == 1);
  // AMD states none.
  CHECK(check_occupancy(read_kineto_trace(fixture(kMi250))).rows.empty());
}

TEST_CASE("rescaling to the GPU the trace was recorded on changes nothing, to a faster one shortens it", "[trace]") {
  const KinetoTrace t = read_kineto_trace(fixture(kA100));
  const GpuSpec a100 = gpu("a100-sxm4-40gb");
  const Rescaled same = rescale_to_gpu(t, a100, a100);
  REQUIRE(same.durations_s.size() == t.activities.size());
  for (std::size_t i = 0; i < t.activities.size(); ++i) CHECK(same.durations_s[i] == Approx(t.activities[i].duration_s).epsilon(1e-12));
  const Rescaled h100 = rescale_to_gpu(t, a100, gpu("h100-sxm5-80gb"));
  std::int64_t total = 0;
  for (const std::int64_t n : h100.counts) total += n;
  CHECK(total == static_cast<std::int64_t>(t.activities.size()));
  const auto cls = [](KernelClass c) { return static_cast<std::size_t>(c); };
  CHECK(h100.counts[cls(KernelClass::host_copy)] == 16);
  CHECK(h100.counts[cls(KernelClass::compute)] > 0);
  CHECK(h100.rescaled_s[cls(KernelClass::compute)] < h100.recorded_s[cls(KernelClass::compute)]);
  CHECK(h100.rescaled_s[cls(KernelClass::memory)] < h100.recorded_s[cls(KernelClass::memory)]);
  CHECK(h100.rescaled_s[cls(KernelClass::host_copy)] == Approx(h100.recorded_s[cls(KernelClass::host_copy)] / 2));  // PCIe 4 -> 5
  const TraceReplayResult faster = replay_trace(kineto_graph(t, h100.durations_s, kineto_launch_latency_s(t)));
  CHECK(faster.busy_s < kineto_recorded(t).busy_s);
}

TEST_CASE("a GEMM whose op recorded its shapes is rescaled through the GEMM model", "[trace]") {
  const KinetoTrace t = read_kineto_trace(fixture(kMi250));
  std::int64_t shaped = 0;
  for (const GpuActivity& a : t.activities) shaped += classify_activity(t, a) == KernelClass::gemm_shaped;
  CHECK(shaped >= 1);
}

TEST_CASE("malformed, truncated and GPU-less Kineto traces are errors naming the file", "[trace]") {
  const std::string text = gunzipped(fixture(kAdd));
  // Truncated JSON: the error names the file, line and column, and the byte offset at the end.
  const std::string cut = temp_file("cut.json", text.substr(0, text.size() / 2));
  CHECK_THROWS_WITH(read_kineto_trace(cut), Catch::Contains(cut + ":") && Catch::Contains("malformed JSON at byte") &&
                                                Catch::Contains("truncated?"));
  // A syntax error in the middle: its line.
  std::string broken = text;
  const std::size_t at = broken.find("\"cat\"", broken.size() / 2);
  broken.insert(at, "}");
  const std::string bad = temp_file("bad.json", broken);
  const int line = 1 + static_cast<int>(std::count(broken.begin(), broken.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  CHECK_THROWS_WITH(read_kineto_trace(bad), Catch::Contains(bad + ":" + std::to_string(line) + ":"));
  // A gzip stream cut short.
  std::ifstream in(fixture(kAdd), std::ios::binary);
  const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string short_gz = temp_file("short.json.gz", gz.substr(0, gz.size() / 2));
  CHECK_THROWS_WITH(read_kineto_trace(short_gz), Catch::Contains(short_gz + ": truncated gzip stream"));
  // Valid JSON that is not a trace, and a trace without GPU work.
  CHECK_THROWS_WITH(read_kineto_trace(temp_file("x.json", "{\"a\": 1}")), Catch::Contains("no traceEvents"));
  const std::string cpu = temp_file("cpu.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 2, "args": {"External id": 1}}]})");
  CHECK_THROWS_WITH(read_kineto_trace(cpu), Catch::Contains(cpu + ": the trace has no GPU kernel"));
  CHECK_THROWS_AS(read_kineto_trace(temp_file("none.json", "")), ConfigError);
  for (const std::string& p : {cut, bad, short_gz}) std::remove(p.c_str());
}

namespace {

// A data-parallel step in miniature: a GEMM, then the gradient all-reduce of 100 MB (fp32) on NCCL's stream,
// its size on the record_param_comms CPU op as PyTorch 2.x records it, and an elementwise kernel.
const char* kDdpTrace = R"JSON({"deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
 "distributedInfo": {"rank": 3}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": 90, "dur": 20, "args": {"External id": 10, "Collective name": "allreduce", "dtype": "Float", "In msg nelems": 25000000, "Out msg nelems": 25000000, "Group size": 8}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 80, "dur": 5, "args": {"correlation": 1, "External id": 9}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 95, "dur": 5, "args": {"correlation": 2, "External id": 10}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 101, "dur": 5, "args": {"correlation": 3, "External id": 11}},
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "ts": 100, "dur": 1000, "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 9}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "ts": 1200, "dur": 5000, "args": {"device": 0, "stream": 20, "correlation": 2, "External id": 10}},
 {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>", "ts": 1100, "dur": 500, "args": {"device": 0, "stream": 7, "correlation": 3, "External id": 11}}
]})JSON";

}  // namespace

TEST_CASE("an NCCL kernel's collective and size come from its CPU op, and run on a fabric under data parallelism", "[trace]") {
  const KinetoTrace t = read_kineto_trace(temp_file("ddp.json", kDdpTrace));
  CHECK(t.rank == 3);
  const auto nccl = std::find_if(t.activities.begin(), t.activities.end(), [](const GpuActivity& a) { return a.nccl; });
  REQUIRE(nccl != t.activities.end());
  CHECK(nccl->collective_name == "allreduce");
  CHECK(nccl->collective_bytes == 1e8);
  CHECK(nccl->collective_group == 8);
  CHECK(kineto_recorded(t).collective_busy_s == Approx(5e-3));
  const double latency = kineto_launch_latency_s(t);
  const TraceGraph single = kineto_graph(t, recorded_durations(t), latency);
  for (const TraceOp& op : single.ops) CHECK_FALSE(op.collective.has_value());
  const TraceGraph dp = kineto_graph(t, recorded_durations(t), latency, true);
  const auto coll = std::find_if(dp.ops.begin(), dp.ops.end(), [](const TraceOp& op) { return op.collective.has_value(); });
  REQUIRE(coll != dp.ops.end());
  CHECK(*coll->collective == CollectiveOp::allreduce);
  CHECK(coll->bytes == 1e8);

  const ClusterConfig cluster = parse_cluster(parse_config_text("cluster: {node: dgx-a100-80gb, nodes: 1}", "p.yaml").at("cluster"),
                                              SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
  Platform platform(cluster);
  TraceFabric fabric{&platform, CollectiveGroup::first(platform.fabric(), 8)};
  const TraceReplayResult r = replay_trace(dp, &fabric);
  // The all-reduce takes what the same collective takes alone on the same machine.
  Platform alone(cluster);
  double alone_s = 0;
  CollectiveRequest request;
  request.bytes = 1e8;
  start_collective(alone.sim(), alone.fair_share(), alone.fabric(), CollectiveGroup::first(alone.fabric(), 8), request,
                   [&](const CollectiveStats& s) { alone_s = (s.end - s.start).to_seconds(); });
  alone.sim().run();
  const std::size_t i = static_cast<std::size_t>(coll - dp.ops.begin());
  CHECK(r.end_s[i] - r.start_s[i] == Approx(alone_s).epsilon(1e-9));
  CHECK(alone_s > 1e-4);
  CHECK(alone_s < 5e-3);  // NVSwitch beats the recorded 5 ms
  CHECK(r.collective_busy_s == Approx(alone_s).epsilon(1e-9));
}

TEST_CASE("collectives on one stream replay their repeats, to the picosecond of simulating each", "[trace]") {
  // An MoE step's all-to-alls (or DDP's buckets) repeat: one at a time on their stream, each runs alone on the
  // fabric, so a repeat takes what its first run took. The same graph with the collectives on no stream,
  // chained by explicit dependencies, simulates every one: the times must be equal, with fewer events.
  auto graph = [](bool one_stream) {
    TraceGraph g;
    for (std::uint32_t i = 0; i < 6; ++i) {
      TraceOp compute;
      compute.stream = 7;
      compute.duration_s = 1e-3;
      g.ops.push_back(compute);
      TraceOp coll;
      coll.cls = TraceOpClass::collective;
      coll.stream = one_stream ? 20 : kTraceNoStream;
      coll.collective = i % 2 ? CollectiveOp::alltoall : CollectiveOp::allreduce;
      coll.bytes = i % 3 ? 5e7 : 1e8;
      g.ops.push_back(coll);
      g.deps.emplace_back(2 * i, 2 * i + 1);
      if (!one_stream && i > 0) g.deps.emplace_back(2 * i - 1, 2 * i + 1);
    }
    return g;
  };
  const ClusterConfig cluster = parse_cluster(
      parse_config_text("cluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}", "p.yaml").at("cluster"),
      SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
  auto replay = [&](const TraceGraph& g) {
    Platform platform(cluster);
    TraceFabric fabric{&platform, CollectiveGroup::first(platform.fabric(), 16)};
    return replay_trace(g, &fabric);
  };
  const TraceReplayResult replayed = replay(graph(true));
  const TraceReplayResult simulated = replay(graph(false));
  REQUIRE(replayed.end_s.size() == simulated.end_s.size());
  for (std::size_t i = 0; i < replayed.end_s.size(); ++i) {
    INFO("op " << i);
    CHECK(replayed.start_s[i] == simulated.start_s[i]);
    CHECK(replayed.end_s[i] == simulated.end_s[i]);
  }
  CHECK(replayed.end_s[3] - replayed.start_s[3] > 0);  // the all-to-all took time on the fabric
  CHECK(replayed.events < simulated.events);
}

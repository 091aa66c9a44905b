#include "driver/trace_import_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "configs/config_error.h"
#include "configs/config_node.h"
#include "models/gpu/gpu_spec.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "models/collectives/algorithm_selector.h"
#include "models/collectives/collective_group.h"
#include "models/platform/cluster_config.h"
#include "models/platform/platform.h"
#include "workloads/trace/chakra_trace.h"
#include "workloads/trace/kernel_rescale.h"
#include "workloads/trace/kineto_graph.h"
#include "workloads/trace/kineto_trace.h"

namespace hpcsim {

namespace {

GpuSpec gpu_named(const SpecCatalog& catalog, const std::string& name, const std::string& flag) {
  const ConfigNode node = ConfigNode::make_scalar(name, SourceLoc{flag + " " + name});
  return parse_gpu_spec(catalog.load("gpus", node, "GPU"), name);
}

double relative(double a, double b) { return b > 0 ? (a - b) / b : 0.0; }

// The cluster: section of a platform file, checked against the GPU count limit.
ClusterConfig cluster_of(const std::string& path, const SpecCatalog& catalog) {
  const ConfigNode root = load_config(path, {});
  if (!root.has("cluster")) throw ConfigError(root.loc(), "the platform file needs a cluster: section");
  const ConfigNode& section = root.at("cluster");
  ClusterConfig cluster = parse_cluster(section, catalog);
  check_count(CountLimit::gpus, static_cast<double>(cluster.nodes) * cluster.gpus_per_node, section.loc(), "the cluster");
  return cluster;
}

// Refuses, naming `flag`, a trace collective whose cheapest schedule over `group` is past the transfer budget
// (an all-to-all over thousands of GPUs): its replay would run for minutes and take gigabytes.
void check_collectives_fit(const TraceGraph& graph, const CollectiveGroup& group, const std::string& flag) {
  std::map<CollectiveOp, double> largest;
  for (const TraceOp& op : graph.ops) {
    if (op.collective && op.bytes > 0) largest[*op.collective] = std::max(largest[*op.collective], op.bytes);
  }
  for (const auto& [op, bytes] : largest) {
    if (const auto too_large = over_transfer_budget(op, group, bytes)) {
      throw ConfigError(SourceLoc{flag}, std::string(too_large->what()) + " (fewer GPUs: " + flag + ")");
    }
  }
}

}  // namespace

KinetoImportRun run_kineto_import(const KinetoImportRequest& q, const SpecCatalog& catalog) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (!q.gpu.empty() && q.recorded_gpu.empty()) {
    throw ConfigError(SourceLoc{"--gpu"}, "needs --recorded-gpu: the GPU spec the trace was recorded on, which the "
                                          "rescaling starts from");
  }
  std::optional<GpuSpec> from, to;
  if (!q.gpu.empty()) {
    from = gpu_named(catalog, q.recorded_gpu, "--recorded-gpu");
    to = gpu_named(catalog, q.gpu, "--gpu");
  }
  const KinetoTrace trace = read_kineto_trace(q.trace, q.device);
  const KinetoRecorded recorded = kineto_recorded(trace);
  const double latency = kineto_launch_latency_s(trace);

  const TraceReplayResult as_recorded = replay_trace(kineto_graph(trace, recorded_durations(trace), latency));
  std::optional<Rescaled> rescaled;
  if (to) rescaled = rescale_to_gpu(trace, *from, *to);
  const std::vector<double> durations = rescaled ? rescaled->durations_s : recorded_durations(trace);
  std::optional<TraceReplayResult> predicted;
  int dp = 1;
  std::int64_t on_fabric = 0;
  if (!q.platform.empty()) {
    const ClusterConfig cluster = cluster_of(q.platform, catalog);
    Platform platform(cluster);
    const int gpus = platform.fabric().gpus();
    dp = q.dp.value_or(gpus);
    if (dp < 2 || dp > gpus) {
      throw ConfigError(SourceLoc{"--dp"}, "must be 2.." + std::to_string(gpus) + " for this cluster, got " + std::to_string(dp));
    }
    const TraceGraph graph = kineto_graph(trace, durations, latency, true);
    for (const TraceOp& op : graph.ops) on_fabric += op.collective && op.bytes > 0;
    if (on_fabric == 0) {
      throw ConfigError(SourceLoc{q.trace}, "data-parallel replay needs the trace's gradient collectives: it has " +
                                                std::to_string(recorded.nccl_kernels) +
                                                " NCCL kernels and none records its collective and size (record the step "
                                                "with DDP under torch.profiler, PyTorch 2.1 or later)");
    }
    TraceFabric fabric{&platform, CollectiveGroup::first(platform.fabric(), dp)};
    check_collectives_fit(graph, fabric.group, "--dp");
    predicted = replay_trace(graph, &fabric);
  } else if (to) {
    predicted = replay_trace(kineto_graph(trace, durations, latency));
  }
  const TraceReplayResult& r = predicted ? *predicted : as_recorded;

  KinetoImportRun run;
  run.occupancy = check_occupancy(trace);
  Report& rep = run.report;
  rep.scenario = std::filesystem::path(q.trace).filename().string();
  rep.kind = "kineto";
  auto add = [&](std::string name, std::optional<double> v, std::string unit) {
    rep.metrics.push_back(Metric{std::move(name), v, std::move(unit)});
  };
  const double other = std::max(0.0, r.makespan_s - r.busy_s);
  add("step_time_s", r.makespan_s, "s");
  add("breakdown_s.compute", r.compute_busy_s, "s");
  add("breakdown_s.memory", r.memory_busy_s, "s");
  add("breakdown_s.communication_exposed", r.communication_exposed_s, "s");
  add("breakdown_s.other", other, "s");
  add("gpu_busy_s", r.busy_s, "s");
  add("gpus", dp, "count");
  add("parallelism.dp", dp, "count");
  add("trace.kernels", static_cast<double>(recorded.kernels), "count");
  add("trace.memcpys", static_cast<double>(recorded.memcpys), "count");
  add("trace.memsets", static_cast<double>(recorded.memsets), "count");
  add("trace.nccl_kernels", static_cast<double>(recorded.nccl_kernels), "count");
  add("trace.streams", static_cast<double>(recorded.streams), "count");
  add("trace.cross_stream_dependencies", static_cast<double>(recorded.cross_stream_waits), "count");
  add("trace.cpu_ops", static_cast<double>(trace.cpu_ops.size()), "count");
  add("trace.device_sms", static_cast<double>(trace.device.sm_count), "count");
  add("trace.launch_latency_s", latency, "s");
  add("recorded.step_time_s", recorded.span_s, "s");
  add("recorded.gpu_busy_s", recorded.busy_s, "s");
  add("as_recorded.step_time_s", as_recorded.makespan_s, "s");
  add("as_recorded.gpu_busy_s", as_recorded.busy_s, "s");
  add("as_recorded.gpu_busy_error", relative(as_recorded.busy_s, recorded.busy_s), "ratio");
  add("as_recorded.step_time_error", relative(as_recorded.makespan_s, recorded.span_s), "ratio");
  if (predicted) add("predicted.gpu_busy_s", predicted->busy_s, "s");
  if (predicted) add("predicted.speedup", predicted->makespan_s > 0 ? as_recorded.makespan_s / predicted->makespan_s : 0.0, "ratio");
  if (!q.platform.empty()) add("predicted.collectives_on_fabric", static_cast<double>(on_fabric), "count");
  if (rescaled) {
    for (int c = 0; c < kKernelClassCount; ++c) {
      const std::string k = "predicted.classes." + std::string(to_string(static_cast<KernelClass>(c)));
      add(k + ".activities", static_cast<double>(rescaled->counts[c]), "count");
      add(k + ".recorded_s", rescaled->recorded_s[c], "s");
      add(k + ".predicted_s", rescaled->rescaled_s[c], "s");
    }
  }
  add("occupancy.kernels_checked", static_cast<double>(run.occupancy.kernels_checked), "count");
  add("occupancy.kernels_equal", static_cast<double>(run.occupancy.kernels_equal), "count");
  add("sim_wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(), "s");
  add("events", static_cast<double>(r.events), "count");
  return run;
}

Report run_chakra_import(const ChakraImportRequest& q, const SpecCatalog& catalog) {
  const auto wall_start = std::chrono::steady_clock::now();
  const ClusterConfig cluster = cluster_of(q.platform, catalog);
  const ChakraTrace trace = read_chakra_trace(q.trace);
  const ChakraGraphCheck check = check_chakra_graph(trace);
  const TraceGraph graph = chakra_graph(trace);
  Platform platform(cluster);
  const int gpus = platform.fabric().gpus();
  const int ranks = q.ranks.value_or(gpus);
  if (ranks < 2 || ranks > gpus) {
    throw ConfigError(SourceLoc{"--ranks"}, "must be 2.." + std::to_string(gpus) + " for this cluster, got " + std::to_string(ranks));
  }
  TraceFabric fabric{&platform, CollectiveGroup::first(platform.fabric(), ranks)};
  check_collectives_fit(graph, fabric.group, "--ranks");
  const TraceReplayResult r = replay_trace(graph, &fabric);

  Report rep;
  rep.scenario = std::filesystem::path(q.trace).filename().string();
  rep.kind = "chakra";
  auto add = [&](std::string name, double v, std::string unit) { rep.metrics.push_back(Metric{std::move(name), v, std::move(unit)}); };
  std::int64_t on_fabric = 0, fixed = 0;
  for (const TraceOp& op : graph.ops) {
    if (op.cls != TraceOpClass::collective) continue;
    (op.collective && op.bytes > 0 ? on_fabric : fixed)++;
  }
  add("step_time_s", r.makespan_s, "s");
  add("breakdown_s.compute", r.compute_busy_s, "s");
  add("breakdown_s.memory", r.memory_busy_s, "s");
  add("breakdown_s.communication_exposed", r.communication_exposed_s, "s");
  add("breakdown_s.other", std::max(0.0, r.makespan_s - r.busy_s), "s");
  add("gpu_busy_s", r.busy_s, "s");
  add("gpus", ranks, "count");
  add("parallelism.dp", ranks, "count");
  add("chakra.nodes", static_cast<double>(check.nodes), "count");
  for (int t = 0; t < kChakraNodeTypeCount; ++t) {
    add(std::string("chakra.nodes_by_type.") + to_string(static_cast<ChakraNodeType>(t)), static_cast<double>(check.nodes_by_type[t]), "count");
  }
  add("chakra.ctrl_deps", static_cast<double>(check.ctrl_edges), "count");
  add("chakra.data_deps", static_cast<double>(check.data_edges), "count");
  add("chakra.ctrl_deps_outside_trace", static_cast<double>(check.dangling_ctrl), "count");
  add("chakra.collectives_on_fabric", static_cast<double>(on_fabric), "count");
  add("chakra.communication_as_recorded", static_cast<double>(fixed), "count");
  add("sim_wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(), "s");
  add("events", static_cast<double>(r.events), "count");
  return rep;
}

}  // namespace hpcsim

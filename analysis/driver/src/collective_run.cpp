#include "driver/collective_run.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "configs/units.h"
#include "models/collectives/algorithm_selector.h"
#include "models/collectives/collective_algorithms.h"
#include "models/collectives/collective_runner.h"
#include "models/platform/platform.h"

namespace hpcsim {

namespace {

constexpr double kMaxCollectiveBytes = 1125899906842624;  // 1 PiB

double parse_bytes(const std::string& text, const std::string& flag) {
  double v = 0;
  try {
    v = parse_quantity(text, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    throw CollectiveInputError(flag + ": " + e.what());
  }
  if (!(v >= 1) || std::floor(v) != v) {
    throw CollectiveInputError(flag + ": a size must be a whole number of bytes >= 1, got " + text);
  }
  // Far past any message a collective moves; above ~1e22 B the flow model's times leave its range.
  if (v > kMaxCollectiveBytes) throw CollectiveInputError(flag + ": a size may be at most 1 PiB, got " + text);
  return v;
}

std::vector<double> sizes_of(const CollectiveRunOptions& o) {
  if (!o.size.empty()) return {parse_bytes(o.size, "--size")};
  if (o.min.empty() || o.max.empty()) throw CollectiveInputError("--size or both --min and --max are required");
  const double lo = parse_bytes(o.min, "--min"), hi = parse_bytes(o.max, "--max");
  if (lo > hi) throw CollectiveInputError("--min (" + o.min + ") is larger than --max (" + o.max + ")");
  std::vector<double> sizes;
  for (double s = lo; s <= hi; s *= 2) sizes.push_back(s);
  return sizes;
}

// The `cluster:` section the flags describe, with this many nodes.
ConfigNode cluster_section(const CollectiveRunOptions& o, int nodes) {
  ConfigNode c = ConfigNode::make_map(SourceLoc{"hpcsim collective"});
  c.set("node", ConfigNode::make_scalar(o.node, SourceLoc{"--node"}));
  c.set("nodes", ConfigNode::make_scalar(std::to_string(nodes), SourceLoc{o.nodes ? "--nodes" : "--gpus"}));
  if (!o.network.empty()) c.set("network", ConfigNode::make_scalar(o.network, SourceLoc{"--network"}));
  return c;
}

// The cluster from --cluster FILE (its `cluster:` section) or from --node/--nodes/--network, both read by
// parse_cluster. Without --nodes: enough nodes for --gpus, else 1.
ClusterConfig cluster_of(const CollectiveRunOptions& o, const SpecCatalog& catalog) {
  if (!o.cluster_file.empty()) {
    const ConfigNode section = load_config(o.cluster_file, {}).at("cluster");
    ClusterConfig c = parse_cluster(section, catalog);
    check_count(CountLimit::gpus, static_cast<double>(c.nodes) * c.gpus_per_node,
                section.has("nodes") ? section.at("nodes").loc() : section.loc(), "the cluster");
    return c;
  }
  if (o.node.empty()) throw CollectiveInputError("--cluster or --node is required");
  // One node first: the node and network names are checked before the count, and the node's GPUs size it.
  ClusterConfig c = parse_cluster(cluster_section(o, 1), catalog);
  if (o.nodes && *o.nodes < 1) throw CollectiveInputError("--nodes must be at least 1");
  if (o.nodes) {
    check_count(CountLimit::gpus, static_cast<double>(*o.nodes) * c.gpus_per_node,
                SourceLoc{"--nodes " + std::to_string(*o.nodes)},
                std::to_string(*o.nodes) + " nodes of " + std::to_string(c.gpus_per_node) + " GPUs");
  } else if (o.gpus) {
    check_count(CountLimit::gpus, *o.gpus, SourceLoc{"--gpus " + std::to_string(*o.gpus)}, "the collective");
  }
  const int nodes = o.nodes.value_or(o.gpus ? std::max(1, (*o.gpus + c.gpus_per_node - 1) / c.gpus_per_node) : 1);
  if (nodes == 1) return c;
  if (o.network.empty()) throw CollectiveInputError("--network is required for " + std::to_string(nodes) + " nodes");
  return parse_cluster(cluster_section(o, nodes), catalog);
}

}  // namespace

CollectiveRun run_collective(const CollectiveRunOptions& o, const SpecCatalog& catalog) {
  const std::optional<CollectiveOp> op = parse_op(o.op);
  if (!op) throw CollectiveInputError("--op " + o.op + ": unknown collective");
  std::optional<CollectiveAlgorithm> algorithm;
  if (!o.algo.empty()) {
    algorithm = parse_algorithm(o.algo);
    if (!algorithm) throw CollectiveInputError("--algo " + o.algo + ": unknown algorithm");
  }
  CollectiveRun run;
  run.op = *op;
  const std::vector<double> sizes = sizes_of(o);
  run.cluster = cluster_of(o, catalog);
  Platform platform(run.cluster);
  const ClusterFabric& fabric = platform.fabric();
  // One GPU moves nothing: time 0 and a bus bandwidth of 0/0, nothing nccl-tests would print.
  if (fabric.gpus() < 2) {
    throw CollectiveInputError("a collective needs at least 2 GPUs; this cluster has " + std::to_string(fabric.gpus()));
  }
  if (o.gpus && (*o.gpus < 2 || *o.gpus > fabric.gpus())) {
    throw CollectiveInputError("--gpus must be 2.." + std::to_string(fabric.gpus()) +
                               " for this cluster (a collective needs at least 2 GPUs), got " + std::to_string(*o.gpus));
  }
  const CollectiveGroup group = CollectiveGroup::first(fabric, o.gpus.value_or(fabric.gpus()));
  run.ranks = group.size();
  CollectiveRequest request;
  request.op = *op;
  if (algorithm) {
    request.algorithm = *algorithm;
    if (const std::string why = unsupported_reason(*op, *algorithm, group); !why.empty()) {
      throw CollectiveInputError("--algo: " + why);
    }
  }
  // Refused when even the cheapest schedule it could run has more distinct transfers than the selector
  // affords (kTransferBudget): an all-to-all over 100,000 GPUs moves 10^10 messages and exhausted memory.
  if (const auto too_large = over_transfer_budget(*op, group, sizes.back(), algorithm)) {
    throw CollectiveInputError("--op " + std::string(too_large->what()) + " (fewer GPUs: --gpus)");
  }
  for (const double bytes : sizes) {
    if (o.progress) o.progress(run.rows.size(), sizes.size());
    request.bytes = bytes;
    CollectiveRow row;
    row.bytes = bytes;
    row.algorithm = start_collective(platform.sim(), platform.fair_share(), fabric, group, request,
                                     [&row](const CollectiveStats& s) { row.seconds = (s.end - s.start).to_seconds(); });
    platform.sim().run();
    run.rows.push_back(row);
  }
  if (o.progress) o.progress(run.rows.size(), sizes.size());
  return run;
}

}  // namespace hpcsim

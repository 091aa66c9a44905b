// `hpcsim collective`: nccl-tests-style bandwidth of one collective over a cluster, size by size.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/json_writer.h"
#include "configs/loader.h"
#include "configs/units.h"
#include "models/collectives/collective_runner.h"
#include "models/platform/cluster_config.h"
#include "models/platform/platform.h"

namespace hpcsim::cli {

namespace {

struct CollectiveOptions {
  std::string cluster_file, node, network, op, algo, format = "table";
  std::optional<int> nodes, gpus;
  std::string size, min, max;
};

// Bad input named by its flag: printed by the command, exit 2.
struct FlagError {
  std::string message;
};

struct Row {
  double bytes = 0, seconds = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
};

constexpr double kMaxCollectiveBytes = 1125899906842624;  // 1 PiB

double parse_bytes(const std::string& text, const std::string& flag) {
  double v = 0;
  try {
    v = parse_quantity(text, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    throw FlagError{flag + ": " + e.what()};
  }
  if (!(v >= 1) || std::floor(v) != v) throw FlagError{flag + ": a size must be a whole number of bytes >= 1, got " + text};
  // Far past any message a collective moves; above ~1e22 B the flow model's times leave its range.
  if (v > kMaxCollectiveBytes) throw FlagError{flag + ": a size may be at most 1 PiB, got " + text};
  return v;
}

std::vector<double> sizes_of(const CollectiveOptions& o) {
  if (!o.size.empty()) return {parse_bytes(o.size, "--size")};
  if (o.min.empty() || o.max.empty()) throw FlagError{"--size or both --min and --max are required"};
  const double lo = parse_bytes(o.min, "--min"), hi = parse_bytes(o.max, "--max");
  if (lo > hi) throw FlagError{"--min (" + o.min + ") is larger than --max (" + o.max + ")"};
  std::vector<double> sizes;
  for (double s = lo; s <= hi; s *= 2) sizes.push_back(s);
  return sizes;
}

// The `cluster:` section the flags describe, with this many nodes.
ConfigNode cluster_section(const CollectiveOptions& o, int nodes) {
  ConfigNode c = ConfigNode::make_map(SourceLoc{"hpcsim collective"});
  c.set("node", ConfigNode::make_scalar(o.node, SourceLoc{"--node"}));
  c.set("nodes", ConfigNode::make_scalar(std::to_string(nodes), SourceLoc{o.nodes ? "--nodes" : "--gpus"}));
  if (!o.network.empty()) c.set("network", ConfigNode::make_scalar(o.network, SourceLoc{"--network"}));
  return c;
}

// The cluster from --cluster FILE (its `cluster:` section) or from --node/--nodes/--network, both read by
// parse_cluster. Without --nodes: enough nodes for --gpus, else 1.
ClusterConfig cluster_of(const CollectiveOptions& o, const SpecCatalog& catalog) {
  if (!o.cluster_file.empty()) {
    const ConfigNode section = load_config(o.cluster_file, {}).at("cluster");
    ClusterConfig c = parse_cluster(section, catalog);
    check_count(CountLimit::gpus, static_cast<double>(c.nodes) * c.gpus_per_node,
                section.has("nodes") ? section.at("nodes").loc() : section.loc(), "the cluster");
    return c;
  }
  if (o.node.empty()) throw FlagError{"--cluster or --node is required"};
  // One node first: the node and network names are checked before the count, and the node's GPUs size it.
  ClusterConfig c = parse_cluster(cluster_section(o, 1), catalog);
  if (o.nodes && *o.nodes < 1) throw FlagError{"--nodes must be at least 1"};
  if (o.nodes) {
    check_count(CountLimit::gpus, static_cast<double>(*o.nodes) * c.gpus_per_node,
                SourceLoc{"--nodes " + std::to_string(*o.nodes)},
                std::to_string(*o.nodes) + " nodes of " + std::to_string(c.gpus_per_node) + " GPUs");
  } else if (o.gpus) {
    check_count(CountLimit::gpus, *o.gpus, SourceLoc{"--gpus " + std::to_string(*o.gpus)}, "the collective");
  }
  const int nodes = o.nodes.value_or(o.gpus ? std::max(1, (*o.gpus + c.gpus_per_node - 1) / c.gpus_per_node) : 1);
  if (nodes == 1) return c;
  if (o.network.empty()) throw FlagError{"--network is required for " + std::to_string(nodes) + " nodes"};
  return parse_cluster(cluster_section(o, nodes), catalog);
}

std::string number(double v) { return json::number(v, 17); }

void print_json(const std::vector<Row>& rows, CollectiveOp op, int ranks) {
  std::ostringstream out;
  out << "{\n  \"op\": " << json::quote(op_name(op)) << ",\n  \"gpus\": " << ranks << ",\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double algbw = r.bytes / r.seconds;
    out << (i ? "," : "") << "\n    {\"size_bytes\": " << number(r.bytes) << ", \"time_s\": " << number(r.seconds)
        << ", \"algbw_bytes_per_s\": " << number(algbw)
        << ", \"busbw_bytes_per_s\": " << number(algbw * busbw_factor(op, ranks)) << ", \"algorithm\": \""
        << algorithm_name(r.algorithm) << "\"}";
  }
  out << "\n  ]\n}\n";
  std::cout << out.str();
}

void print_table(const std::vector<Row>& rows, CollectiveOp op, int ranks, const ClusterConfig& c) {
  std::printf("# %s over %d GPUs: %d x %s%s%s\n", std::string(op_name(op)).c_str(), ranks, c.nodes,
              c.node.name.c_str(), c.network ? ", " : "", c.network ? c.network->name.c_str() : "");
  std::printf("# %14s %14s %14s %14s  %s\n", "size (B)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "algorithm");
  for (const Row& r : rows) {
    const double algbw = r.bytes / r.seconds;
    std::printf("  %14.0f %14.2f %14.2f %14.2f  %s\n", r.bytes, r.seconds * 1e6, algbw / 1e9,
                algbw * busbw_factor(op, ranks) / 1e9, std::string(algorithm_name(r.algorithm)).c_str());
  }
}

int run(const CollectiveOptions& o) {
  const SpecCatalog catalog(config_root());
  try {
    const CollectiveOp op = *parse_op(o.op);
    const std::vector<double> sizes = sizes_of(o);
    const ClusterConfig cluster = cluster_of(o, catalog);
    Platform platform(cluster);
    const ClusterFabric& fabric = platform.fabric();
    // One GPU moves nothing: time 0 and a bus bandwidth of 0/0, nothing nccl-tests would print.
    if (fabric.gpus() < 2) {
      throw FlagError{"a collective needs at least 2 GPUs; this cluster has " + std::to_string(fabric.gpus())};
    }
    if (o.gpus && (*o.gpus < 2 || *o.gpus > fabric.gpus())) {
      throw FlagError{"--gpus must be 2.." + std::to_string(fabric.gpus()) +
                      " for this cluster (a collective needs at least 2 GPUs), got " + std::to_string(*o.gpus)};
    }
    const CollectiveGroup group = CollectiveGroup::first(fabric, o.gpus.value_or(fabric.gpus()));
    CollectiveRequest request;
    request.op = op;
    if (!o.algo.empty()) {
      request.algorithm = *parse_algorithm(o.algo);
      if (const std::string why = unsupported_reason(op, *request.algorithm, group); !why.empty()) {
        throw FlagError{"--algo: " + why};
      }
    }
    std::vector<Row> rows;
    for (const double bytes : sizes) {
      request.bytes = bytes;
      Row row;
      row.bytes = bytes;
      row.algorithm = start_collective(platform.sim(), platform.fair_share(), fabric, group, request,
                                       [&row](const CollectiveStats& s) { row.seconds = (s.end - s.start).to_seconds(); });
      platform.sim().run();
      rows.push_back(row);
    }
    if (o.format == "json") {
      print_json(rows, op, group.size());
    } else {
      print_table(rows, op, group.size(), cluster);
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const FlagError& e) {
    std::cerr << "hpcsim collective: " << e.message << "\n";
  }
  return kExitBadInput;
}

std::vector<std::string> names(std::span<const std::string_view> list) { return {list.begin(), list.end()}; }

}  // namespace

Action add_collective_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("collective", "Time a collective over a cluster, nccl-tests style");
  auto o = std::make_shared<CollectiveOptions>();
  auto* cluster = cmd->add_option("--cluster", o->cluster_file, "YAML file whose cluster: section describes the cluster")
                      ->check(CLI::ExistingFile);
  auto* node = cmd->add_option("--node", o->node, "Node spec name (configs/nodes)");
  auto* nodes = cmd->add_option("--nodes", o->nodes, "Number of nodes (default: enough for --gpus, else 1)");
  auto* network = cmd->add_option("--network", o->network, "Network spec name (configs/networks)");
  cluster->excludes(node)->excludes(nodes)->excludes(network);
  cmd->add_option("--op", o->op, "Collective")->required()->check(CLI::IsMember(names(op_names())));
  cmd->add_option("--gpus", o->gpus, "GPUs taking part, the first N in node order (default: all)");
  auto* size = cmd->add_option("--size", o->size, "Message size, e.g. 1GiB");
  auto* min = cmd->add_option("--min", o->min, "Smallest size of a sweep (sizes double up to --max)");
  auto* max = cmd->add_option("--max", o->max, "Largest size of a sweep");
  size->excludes(min)->excludes(max);
  min->needs(max);
  max->needs(min);
  cmd->add_option("--algo", o->algo, "Force an algorithm (default: the selector picks per size)")
      ->check(CLI::IsMember(names(algorithm_names())));
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

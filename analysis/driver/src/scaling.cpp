#include "driver/scaling.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "configs/config_error.h"
#include "configs/count_limits.h"

namespace hpcsim {

namespace {

// `parent[key]`, created as an empty map when absent or empty.
ConfigNode& child_map(ConfigNode& parent, const std::string& key, const SourceLoc& loc) {
  ConfigNode* child = parent.find(key);
  if (child == nullptr || child->is_null()) {
    parent.set(key, ConfigNode::make_map(loc), loc);
    child = parent.find(key);
  }
  return *child;
}

void set_int(ConfigNode& map, const std::string& key, long long value, const SourceLoc& loc) {
  map.set(key, ConfigNode::make_scalar(std::to_string(value), loc), loc);
}

}  // namespace

std::vector<int> parse_gpu_counts(const std::string& text, const std::string& flag) {
  const SourceLoc loc{flag};
  std::vector<int> counts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    int value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || error != std::errc() || end != item.data() + item.size() || value < 1) {
      throw ConfigError(loc, "'" + item + "' is not a GPU count (a positive integer); expected a list like 1,2,4,8");
    }
    check_count(CountLimit::gpus, value, loc, "a run at " + item + " GPUs");
    if (std::find(counts.begin(), counts.end(), value) != counts.end()) {  // a second row would say nothing new
      throw ConfigError(loc, item + " GPUs is given twice; each count runs once");
    }
    counts.push_back(value);
    if (comma == std::string::npos) return counts;
    start = comma + 1;
  }
}

ScaledConfig scale_config(const ConfigNode& root, const TrainingScenario& base, int gpus, const std::string& flag) {
  const SourceLoc loc{flag};
  const ParallelismConfig& par = base.parallelism;
  const int model_parallel = par.layout.model_parallel();
  if (gpus % model_parallel != 0) {
    throw ConfigError(loc, std::to_string(gpus) + " GPUs is not a multiple of tp x pp x cp = " +
                               std::to_string(par.layout.tp) + " x " + std::to_string(par.layout.pp) + " x " +
                               std::to_string(par.layout.cp) + " = " + std::to_string(model_parallel));
  }
  const int node_gpus = base.cluster.node.gpus;
  ScaledConfig out;
  out.root = root;
  out.nodes = (gpus + node_gpus - 1) / node_gpus;
  out.dp = gpus / model_parallel;
  ConfigNode& cluster = child_map(out.root, "cluster", loc);
  if (out.nodes > 1 && !cluster.has("network")) {
    throw ConfigError(loc, std::to_string(gpus) + " GPUs need " + std::to_string(out.nodes) + " nodes of " +
                               std::to_string(node_gpus) + " GPUs (" + base.cluster.node.name +
                               "), and the scenario has no cluster.network to join them");
  }
  set_int(cluster, "nodes", out.nodes, loc);
  set_int(cluster, "gpus_per_node", gpus < node_gpus ? gpus : node_gpus, loc);
  ConfigNode& parallelism = child_map(out.root, "parallelism", loc);
  set_int(parallelism, "dp", out.dp, loc);
  ConfigNode& workload = child_map(out.root, "workload", loc);
  if (workload.has("global_batch")) {
    // A fixed global batch would shrink each replica's batch as dp grows; keep the replica's work instead.
    workload.erase("global_batch");
    set_int(parallelism, "microbatches", par.microbatches, loc);
    out.weak = true;
  }
  return out;
}

}  // namespace hpcsim

#include "analysis/scaling.h"

#include <charconv>
#include <cstdio>

#include "configs/config_error.h"

namespace hpcsim {

namespace {

std::string num(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

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

std::vector<ScalingRow> scaling_rows(const std::vector<ScalingPoint>& points) {
  std::vector<ScalingRow> rows;
  for (const ScalingPoint& p : points) {
    ScalingRow row;
    row.gpus = p.gpus, row.nodes = p.nodes;
    row.step_time_s = p.result.step_time_s;
    row.samples_per_s = p.result.samples_per_s;
    row.tokens_per_s = p.result.tokens_per_s;
    row.interval = p.interval;
    if (!rows.empty() && rows.front().samples_per_s > 0) {
      const ScalingRow& first = rows.front();
      row.speedup = row.samples_per_s / first.samples_per_s;
      row.efficiency = row.speedup / (static_cast<double>(row.gpus) / first.gpus);
    }
    rows.push_back(row);
  }
  return rows;
}

std::string scaling_to_table(const std::string& scenario, const std::vector<ScalingRow>& rows) {
  bool tokens = false;
  for (const ScalingRow& r : rows) tokens = tokens || r.tokens_per_s.has_value();
  std::string out = "scaling: " + scenario + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%6s %6s %14s %14s", "gpus", "nodes", "step_time_s", "samples_per_s");
  out += line;
  if (tokens) out += "   tokens_per_s";
  out += "  speedup  efficiency\n";
  for (const ScalingRow& r : rows) {
    std::snprintf(line, sizeof line, "%6d %6d %14.6g %14.1f", r.gpus, r.nodes, r.step_time_s, r.samples_per_s);
    out += line;
    if (tokens) {
      if (r.tokens_per_s) {
        std::snprintf(line, sizeof line, " %14.0f", *r.tokens_per_s);
      } else {
        std::snprintf(line, sizeof line, " %14s", "n/a");
      }
      out += line;
    }
    std::snprintf(line, sizeof line, " %8s %11s\n", fixed(r.speedup, 2).c_str(), fixed(r.efficiency, 3).c_str());
    out += line;
  }
  return out;
}

std::string scaling_to_json(const std::vector<ScalingRow>& rows) {
  std::string out = "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ScalingRow& r = rows[i];
    out += i == 0 ? "\n" : ",\n";
    out += "  {\"gpus\": " + std::to_string(r.gpus) + ", \"nodes\": " + std::to_string(r.nodes) +
           ", \"step_time_s\": " + num(r.step_time_s) + ", \"samples_per_s\": " + num(r.samples_per_s) +
           ", \"tokens_per_s\": " + (r.tokens_per_s ? num(*r.tokens_per_s) : std::string("null")) +
           ", \"step_time_interval_s\": " +
           (r.interval ? "[" + num(r.interval->low_s) + ", " + num(r.interval->high_s) + "]" : std::string("null")) +
           ", \"speedup\": " + num(r.speedup) + ", \"efficiency\": " + num(r.efficiency) + "}";
  }
  return out + "\n]\n";
}

std::string scaling_to_csv(const std::vector<ScalingRow>& rows) {
  std::string out = "gpus,nodes,step_time_s,samples_per_s,tokens_per_s,speedup,efficiency\n";
  for (const ScalingRow& r : rows) {
    out += std::to_string(r.gpus) + "," + std::to_string(r.nodes) + "," + num(r.step_time_s) + "," +
           num(r.samples_per_s) + "," + (r.tokens_per_s ? num(*r.tokens_per_s) : std::string()) + "," +
           num(r.speedup) + "," + num(r.efficiency) + "\n";
  }
  return out;
}

}  // namespace hpcsim

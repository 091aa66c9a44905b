#include "workloads/scenario.h"

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <utility>

#include "configs/config_error.h"
#include "models/network/topology.h"

namespace hpcsim {

namespace {
Schema positive_int() { return Schema::integer().at_least(1); }
}  // namespace

const Schema& cluster_schema() {
  static const Schema schema = Schema::map({
      required("node", Schema::string()),
      optional("nodes", positive_int()),
      optional("gpus_per_node", positive_int()),
      optional("network", Schema::string()),
      optional("mtu", Schema::quantity(Dimension::bytes).positive()),
      optional("topology", topology_spec_schema()),
  });
  return schema;
}

const Schema& scenario_schema() {
  static const Schema schema = Schema::map({
      optional("extends", Schema::string()),
      optional("name", Schema::string()),
      optional("description", Schema::string()),
      required("cluster", cluster_schema()),
      required("workload", Schema::map({
                               required("model", Schema::string()),
                               required("batch_per_gpu", positive_int()),
                               optional("seq_len", positive_int()),
                               optional("resolution", positive_int()),
                               optional("layers", positive_int()),
                               optional("hidden", positive_int()),
                               optional("heads", positive_int()),
                               optional("ffn", positive_int()),
                               optional("vocab", positive_int()),
                               required("precision", Schema::one_of({"fp32", "tf32", "fp16", "bf16", "fp8"})),
                               required("optimizer", Schema::one_of({"sgd", "momentum", "adam", "adamw"})),
                               optional("optimizer_impl", Schema::one_of({"unfused", "foreach", "fused"})),
                           })),
      optional("parallelism", Schema::map({
                                  optional("dp", positive_int()),
                              })),
  });
  return schema;
}

ClusterConfig parse_cluster(const ConfigNode& cluster, const SpecCatalog& catalog) {
  cluster_schema().validate(cluster);
  ClusterConfig c;
  const ConfigNode& node_name = cluster.at("node");
  const ConfigNode node_spec = catalog.load("nodes", node_name, "node");
  c.node = parse_node_spec(node_spec, node_name.as_string(), catalog);
  if (c.node.gpus == 0) {
    throw ConfigError(node_spec.at("gpus").loc(), "a " + c.node.name + " has no GPUs to train on");
  }
  c.nodes = static_cast<int>(cluster.get_int_or("nodes", 1));
  c.gpus_per_node = static_cast<int>(cluster.get_int_or("gpus_per_node", c.node.gpus));
  if (c.gpus_per_node > c.node.gpus) {
    throw ConfigError(cluster.at("gpus_per_node").loc(),
                      "gpus_per_node is " + std::to_string(c.gpus_per_node) + " but a " +
                          c.node.name + " has " + std::to_string(c.node.gpus) + " GPUs");
  }
  if (const ConfigNode* net = cluster.find("network")) {
    c.network = parse_network_spec(catalog.load("networks", *net, "network"), net->as_string());
  } else if (c.nodes > 1) {
    throw ConfigError(cluster.loc(), "cluster.network is required when nodes > 1");
  }
  if (const ConfigNode* mtu = cluster.find("mtu")) {
    if (!c.network) throw ConfigError(mtu->loc(), "cluster.mtu needs a cluster.network");
    try {
      c.network = c.network->with_mtu(mtu->as_quantity(Dimension::bytes));
    } catch (const std::invalid_argument& e) {
      throw ConfigError(mtu->loc(), e.what());
    }
  }
  if (const ConfigNode* topology = cluster.find("topology")) {
    c.topology = parse_topology_spec(*topology);
    if (c.nodes > 1) {  // a topology that cannot hold the cluster is reported at its key now
      const NicSpec& nics = c.node.nics;
      Topology::build(c.topology, c.nodes, nics.count, nics.rails > 0 ? nics.rails : nics.count);
    }
  }
  return c;
}

namespace {

std::optional<std::int64_t> optional_int(const ConfigNode& map, std::string_view key) {
  if (!map.has(key)) return std::nullopt;
  return map.get_int(key);
}

template <class Enum>
Enum enum_named(const ConfigNode& node, std::initializer_list<std::pair<std::string_view, Enum>> table) {
  for (const auto& [name, value] : table) {
    if (node.as_string() == name) return value;
  }
  throw ConfigError(node.loc(), "unexpected value " + node.describe());  // the schema admits only the names
}

// Builds the model the workload names: a zoo name, or a model YAML path relative to the scenario file.
Model build_workload_model(const ConfigNode& w, const ModelParams& params, const std::filesystem::path& config_root) {
  const ConfigNode& model = w.at("model");
  std::string name = model.as_string();
  const bool path = name.find('/') != std::string::npos || name.ends_with(".yaml");
  if (path) {
    name = (std::filesystem::path(model.loc().file).parent_path() / name).lexically_normal().string();
  } else {
    Schema::one_of(zoo_names(config_root)).validate(model);  // unknown names: "did you mean", at the key
  }
  try {
    return build_model(name, params, config_root);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::invalid_argument& e) {  // a missing or impossible size, a shape that does not fit
    throw ConfigError(w.loc(), std::string("workload.model '") + model.as_string() + "': " + e.what());
  }
}

}  // namespace

WorkloadConfig parse_workload(const ConfigNode& w, const std::filesystem::path& config_root) {
  WorkloadConfig c;
  c.model = w.get_string("model");
  c.params = ModelParams{optional_int(w, "seq_len"), optional_int(w, "resolution"), optional_int(w, "layers"),
                         optional_int(w, "hidden"),  optional_int(w, "heads"),      optional_int(w, "ffn"),
                         optional_int(w, "vocab")};
  c.built = build_workload_model(w, c.params, config_root);
  c.batch_per_gpu = static_cast<int>(w.get_int("batch_per_gpu"));
  c.precision = *parse_precision(w.get_string("precision"));
  c.optimizer = enum_named<OptimizerKind>(w.at("optimizer"), {{"sgd", OptimizerKind::sgd},
                                                              {"momentum", OptimizerKind::momentum},
                                                              {"adam", OptimizerKind::adam},
                                                              {"adamw", OptimizerKind::adamw}});
  if (const ConfigNode* impl = w.find("optimizer_impl")) {
    c.optimizer_impl = enum_named<OptimizerImpl>(*impl, {{"unfused", OptimizerImpl::unfused},
                                                         {"foreach", OptimizerImpl::foreach},
                                                         {"fused", OptimizerImpl::fused}});
  }
  return c;
}

Scenario parse_scenario(const ConfigNode& root, const SpecCatalog& catalog, std::string name) {
  scenario_schema().validate(root);
  Scenario s;
  s.name = root.get_string_or("name", std::move(name));

  s.cluster = parse_cluster(root.at("cluster"), catalog);

  s.workload = parse_workload(root.at("workload"), catalog.root());
  if (!s.cluster.node.gpu.supports(s.workload.precision)) {
    throw ConfigError(root.at("workload").at("precision").loc(),
                      "the " + s.cluster.node.gpu.name + " has no " +
                          std::string(to_string(s.workload.precision)) + " math units");
  }

  const int gpus = s.cluster.gpus();
  s.parallelism.dp = gpus;
  if (const ConfigNode* p = root.find("parallelism"); p != nullptr && p->has("dp")) {
    s.parallelism.dp = static_cast<int>(p->get_int("dp"));
    if (s.parallelism.dp > gpus) {
      throw ConfigError(p->at("dp").loc(), "dp is " + std::to_string(s.parallelism.dp) + " but the cluster has " +
                                               std::to_string(gpus) + " GPUs");
    }
  }
  return s;
}

}  // namespace hpcsim

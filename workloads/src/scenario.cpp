#include "workloads/scenario.h"

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
                               required("model", Schema::one_of({"gpt"})),
                               required("batch_per_gpu", positive_int()),
                               required("seq_len", positive_int()),
                               required("layers", positive_int()),
                               required("hidden", positive_int()),
                               required("heads", positive_int()),
                               optional("ffn", positive_int()),
                               required("vocab", positive_int()),
                               required("precision", Schema::one_of({"fp32", "tf32", "fp16", "bf16", "fp8"})),
                               required("optimizer", Schema::one_of({"sgd", "momentum", "adam", "adamw"})),
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

Scenario parse_scenario(const ConfigNode& root, const SpecCatalog& catalog, std::string name) {
  scenario_schema().validate(root);
  Scenario s;
  s.name = root.get_string_or("name", std::move(name));

  s.cluster = parse_cluster(root.at("cluster"), catalog);

  const ConfigNode& w = root.at("workload");
  s.workload.model = w.get_string("model");
  s.workload.batch_per_gpu = static_cast<int>(w.get_int("batch_per_gpu"));
  s.workload.seq_len = static_cast<int>(w.get_int("seq_len"));
  s.workload.layers = static_cast<int>(w.get_int("layers"));
  s.workload.hidden = static_cast<int>(w.get_int("hidden"));
  s.workload.heads = static_cast<int>(w.get_int("heads"));
  s.workload.ffn = static_cast<int>(w.get_int_or("ffn", 4LL * s.workload.hidden));
  s.workload.vocab = static_cast<int>(w.get_int("vocab"));
  if (s.workload.hidden % s.workload.heads != 0) {
    throw ConfigError(w.at("heads").loc(), "hidden (" + std::to_string(s.workload.hidden) +
                                               ") must be a multiple of heads (" +
                                               std::to_string(s.workload.heads) + ")");
  }
  s.workload.precision = *parse_precision(w.get_string("precision"));
  if (!s.cluster.node.gpu.supports(s.workload.precision)) {
    throw ConfigError(w.at("precision").loc(), "the " + s.cluster.node.gpu.name + " has no " +
                                                   w.get_string("precision") + " math units");
  }
  s.workload.optimizer = w.get_string("optimizer");

  const int gpus = s.cluster.gpus();
  s.parallelism.dp = gpus;
  if (const ConfigNode* p = root.find("parallelism"); p != nullptr && p->has("dp")) {
    s.parallelism.dp = static_cast<int>(p->get_int("dp"));
    if (s.parallelism.dp != gpus) {
      throw ConfigError(p->at("dp").loc(), "dp is " + std::to_string(s.parallelism.dp) + " but the cluster has " +
                                               std::to_string(gpus) +
                                               " GPUs (only pure data parallelism is simulated so far)");
    }
  }
  return s;
}

}  // namespace hpcsim

#include "models/platform/cluster_config.h"

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "models/network/topology.h"

namespace hpcsim {

namespace {
Schema positive_int() { return Schema::integer().at_least(1); }
}  // namespace

const Schema& cluster_schema() {
  static const Schema schema = Schema::map({
      required("node", Schema::string(), "the node type: a name in configs/nodes (training needs one with GPUs)"),
      optional("nodes", positive_int(), "nodes in the cluster", "1"),
      optional("gpus_per_node", positive_int(), "GPUs used in each node; at most the node's", "every GPU of the node"),
      optional("network", Schema::string(), "the network between nodes: a name in configs/networks",
               "none: required when nodes > 1"),
      optional("mtu", Schema::quantity(Dimension::bytes).at_least(64),
               "MTU the network runs with (within its header bytes and max_mtu); needs network", "the network's mtu"),
      optional("routing", Schema::one_of(kRoutingNames.names()),
               "how the switches choose among equally short next hops (ecmp or d-mod-k, see the network "
               "spec's routing); needs network",
               "the network's routing"),
      optional("topology", topology_spec_schema(), "how the network's switches are laid out", "crossbar"),
      optional("storage", Schema::string(), "the storage system datasets are read from: a name in configs/storage",
               "none: workload.dataset, if any, must be synthetic"),
      optional("filesystem", Schema::string(),
               "instead of storage: a file system described as hardware (a name in configs/filesystems) that datasets "
               "are read from and, unless resilience.checkpoint says otherwise, checkpoints are written to",
               "none"),
  });
  return schema;
}

namespace {

ClusterConfig parse_any_cluster(const ConfigNode& cluster, const SpecCatalog& catalog, bool need_gpus) {
  cluster_schema().validate(cluster);
  ClusterConfig c;
  const ConfigNode& node_name = cluster.at("node");
  const ConfigNode node_spec = catalog.load("nodes", node_name, "node");
  c.node = parse_node_spec(node_spec, node_name.as_string(), catalog);
  if (need_gpus && c.node.gpus == 0) {
    throw ConfigError(node_spec.at("gpus").loc(), "a " + c.node.name + " has no GPUs to train on");
  }
  c.nodes = static_cast<int>(cluster.get_int_or("nodes", 1));
  if (const ConfigNode* nodes = cluster.find("nodes")) {
    check_count(CountLimit::nodes, static_cast<double>(c.nodes), nodes->loc(), "the cluster");
  }
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
  if (c.nodes > 1 && c.node.nics.count < 1) {  // the fabric has nowhere to attach the node (fuzz seed 8675309)
    throw ConfigError(cluster.at("nodes").loc(), std::to_string(c.nodes) + " nodes, but a " + c.node.name +
                                                     " has no NICs (nics.count: 0) to join a cluster network");
  }
  if (const ConfigNode* mtu = cluster.find("mtu")) {
    if (!c.network) throw ConfigError(mtu->loc(), "cluster.mtu needs a cluster.network");
    try {
      c.network = c.network->with_mtu(mtu->as_quantity(Dimension::bytes));
    } catch (const std::invalid_argument& e) {
      throw ConfigError(mtu->loc(), e.what());
    }
  }
  if (const ConfigNode* routing = cluster.find("routing")) {
    if (!c.network) throw ConfigError(routing->loc(), "cluster.routing needs a cluster.network");
    c.network->routing = *kRoutingNames.parse(routing->as_string());
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

}  // namespace

ClusterConfig parse_cluster(const ConfigNode& cluster, const SpecCatalog& catalog) {
  return parse_any_cluster(cluster, catalog, true);
}

ClusterConfig parse_cpu_cluster(const ConfigNode& cluster, const SpecCatalog& catalog) {
  return parse_any_cluster(cluster, catalog, false);
}

}  // namespace hpcsim

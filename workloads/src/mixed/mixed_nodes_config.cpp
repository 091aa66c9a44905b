#include "workloads/mixed/mixed_nodes_config.h"

#include "configs/config_error.h"
#include "models/network/topology.h"

namespace hpcsim {

const Schema& mixed_nodes_schema() {
  static const Schema schema = Schema::map({
      required("node", Schema::string(),
               "the second node type: a name in configs/nodes, on the cluster's network and topology, with at least "
               "cluster.gpus_per_node GPUs"),
      required("nodes", Schema::integer().at_least(1),
               "how many of cluster.nodes are of this type (the rest are cluster.node): 1 to cluster.nodes - 1"),
      optional("batch_split", Schema::one_of(kBatchSplitNames.names()),
               "even: every replica runs the file's batch; proportional: each node type's samples per replica in "
               "proportion to its replicas' speed (its micro batch, or its microbatches when the step has several)",
               "even"),
  });
  return schema;
}

MixedNodesConfig parse_mixed_nodes(const ConfigNode& section, const SpecCatalog& catalog, const ClusterConfig& cluster,
                                   const ParallelLayout& layout, Precision precision, const ConfigNode* dp_key) {
  mixed_nodes_schema().validate(section);
  MixedNodesConfig c;
  const ConfigNode& name = section.at("node");
  c.node_name = name.as_string();
  c.node = parse_node_spec(catalog.load("nodes", name, "node"), c.node_name, catalog);
  const int gpn = cluster.gpus_per_node;
  if (c.node.gpus < gpn) {
    throw ConfigError(name.loc(), "mixed_nodes.node: the " + c.node.name + " node has " + std::to_string(c.node.gpus) +
                                      " GPUs but the job uses " + std::to_string(gpn) +
                                      " per node (cluster.gpus_per_node)");
  }
  if (!c.node.gpu.supports(precision)) {
    throw ConfigError(name.loc(), "mixed_nodes.node: the " + c.node.gpu.name + " has no " +
                                      std::string(to_string(precision)) + " math units (workload.precision)");
  }
  if (cluster.nodes > 1) {  // the cluster's topology must hold this node type's NICs too
    const NicSpec& nics = c.node.nics;
    try {
      Topology::build(cluster.topology, cluster.nodes, nics.count, nics.rails > 0 ? nics.rails : nics.count);
    } catch (const std::exception& e) {
      throw ConfigError(name.loc(), "mixed_nodes.node: the cluster's topology cannot hold " +
                                        std::to_string(cluster.nodes) + " nodes of a " + c.node.name + ": " + e.what());
    }
  }
  const ConfigNode& nodes = section.at("nodes");
  c.nodes = static_cast<int>(nodes.as_int());
  if (c.nodes >= cluster.nodes) {
    throw ConfigError(nodes.loc(), "mixed_nodes.nodes is " + std::to_string(c.nodes) + " but the cluster has " +
                                       std::to_string(cluster.nodes) +
                                       " nodes: at least one must be cluster.node (give 1 to " +
                                       std::to_string(cluster.nodes - 1) + ")");
  }
  // Every data-parallel replica (tp x pp x cp GPUs) lies within one node type, and every GPU is in the job.
  const int mp = layout.model_parallel();
  if (layout.gpus() != cluster.gpus()) {
    throw ConfigError(dp_key != nullptr ? dp_key->loc() : nodes.loc(),
                      "parallelism.dp " + std::to_string(layout.dp) + " leaves GPUs of the cluster idle; with "
                      "mixed_nodes every GPU is in the job (dp = GPUs / (tp x pp x cp) = " +
                          std::to_string(cluster.gpus() / mp) + ")");
  }
  const int second = c.nodes * gpn, first = (cluster.nodes - c.nodes) * gpn;
  if (second % mp != 0 || first % mp != 0) {
    throw ConfigError(nodes.loc(), "mixed_nodes.nodes " + std::to_string(c.nodes) + ": the " +
                                       std::to_string(second) + " and " + std::to_string(first) +
                                       " GPUs of the two node types do not divide into replicas of tp x pp x cp = " +
                                       std::to_string(mp) + " GPUs (a replica spanning both types is not modelled)");
  }
  if (const ConfigNode* split = section.find("batch_split")) c.batch_split = *kBatchSplitNames.parse(split->as_string());
  return c;
}

}  // namespace hpcsim

#include "workloads/scheduling/partition_nodes.h"

#include <stdexcept>
#include <string>

#include "configs/config_error.h"
#include "workloads/scheduling/node_leaves.h"

namespace hpcsim {

namespace {

// The cluster with `name`'s node type (every GPU of it used), errors at the name.
ClusterConfig with_node(const ClusterConfig& cluster, const ConfigNode& name, const SpecCatalog& catalog) {
  if (name.as_string() == cluster.node.name) return cluster;
  ClusterConfig c = cluster;
  c.node = parse_node_spec(catalog.load("nodes", name, "node"), name.as_string(), catalog);
  c.gpus_per_node = c.node.gpus;
  return c;
}

std::string nic_ports(int n) { return std::to_string(n) + (n == 1 ? " NIC port" : " NIC ports"); }

}  // namespace

std::vector<ClusterConfig> partition_clusters(const JobList& list, const ClusterConfig& cluster,
                                              const std::vector<int>& node_leaf, const SpecCatalog& catalog) {
  if (list.partitions.empty()) return {cluster};
  std::vector<ClusterConfig> out;
  for (std::size_t i = 0; i < list.partitions.size(); ++i) {
    const std::optional<ConfigNode>& name = list.partition_nodes[i];
    if (!name) {
      out.push_back(cluster);
      continue;
    }
    ClusterConfig c = with_node(cluster, *name, catalog);
    std::vector<int> leaves;
    try {
      leaves = node_leaves(c);
    } catch (const std::exception& e) {  // the topology cannot hold this many of these nodes
      throw ConfigError(name->loc(), "partition " + list.partitions[i].name + ": the cluster's topology cannot hold " +
                                         std::to_string(c.nodes) + " " + c.node.name + " nodes: " + e.what());
    }
    const Partition& p = list.partitions[i];
    for (int n = p.first_node; n < p.first_node + p.nodes; ++n) {
      const auto at = static_cast<std::size_t>(n);
      if (at < node_leaf.size() && leaves[at] != node_leaf[at]) {
        throw ConfigError(name->loc(), "partition " + p.name + ": a " + c.node.name + " (" +
                                           nic_ports(c.node.nics.count) + ") puts node " +
                                           std::to_string(n) + " under another leaf switch than a " +
                                           cluster.node.name + " (" + nic_ports(cluster.node.nics.count) +
                                           ") does; the queue allocates by one leaf layout (a mixed "
                                           "layout is not modelled)");
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

void refuse_partition_nodes(const JobList& list) {
  for (const std::optional<ConfigNode>& name : list.partition_nodes) {
    if (name) {
      throw ConfigError(name->loc(), "a partition's node type needs a described cluster: give --cluster FILE, "
                                     "not --nodes N (whose nodes have no type)");
    }
  }
}

MachineNodes machine_nodes(const ClusterConfig& cluster) {
  return MachineNodes{cluster.gpus_per_node, cluster.node.host_memory_bytes, cluster.node.name};
}

}  // namespace hpcsim

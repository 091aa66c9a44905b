#pragma once
// The machine a platform simulates: a node type, how many, the GPUs used per node, the network and its
// topology, read from the `cluster:` section every scenario kind shares.
#include <optional>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/network/network_spec.h"
#include "models/network/topology_spec.h"
#include "models/node/node_spec.h"

namespace hpcsim {

struct ClusterConfig {
  NodeSpec node;
  int nodes = 1;
  int gpus_per_node = 0;  // defaults to every GPU of the node
  std::optional<NetworkSpec> network;  // with cluster.mtu applied when given
  TopologySpec topology;               // crossbar unless cluster.topology says otherwise
  int gpus() const { return nodes * gpus_per_node; }
};

// The `cluster:` section alone (hpcsim collective reads it from any YAML file).
const Schema& cluster_schema();
// Resolves node and network names through the catalog; a node without GPUs, more gpus_per_node than the
// node has, a missing network for several nodes or a topology that cannot hold them are ConfigErrors.
ClusterConfig parse_cluster(const ConfigNode& cluster, const SpecCatalog& catalog);
// The same for jobs that run on the CPUs (kind: mpi): the node may have no GPUs (gpus_per_node is then 0).
ClusterConfig parse_cpu_cluster(const ConfigNode& cluster, const SpecCatalog& catalog);

}  // namespace hpcsim

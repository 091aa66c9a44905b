#pragma once
// The leaf switch of each node of a cluster, for topology-aware allocation (QueueSetup::node_leaf): the
// switch its first NIC port attaches to (endpoint node x NICs per node, topology.h). A crossbar, or a
// single node, is one switch: every node is under leaf 0.
#include <vector>

#include "models/platform/cluster_config.h"

namespace hpcsim {

// Throws as Topology::build when the topology cannot hold the cluster.
std::vector<int> node_leaves(const ClusterConfig& cluster);

}  // namespace hpcsim

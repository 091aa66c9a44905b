#include "workloads/scheduling/node_leaves.h"

#include "models/network/topology.h"

namespace hpcsim {

std::vector<int> node_leaves(const ClusterConfig& cluster) {
  std::vector<int> leaf(static_cast<std::size_t>(cluster.nodes), 0);
  if (cluster.nodes < 2 || cluster.topology.kind == TopologyKind::crossbar) return leaf;
  // Built as ClusterFabric builds it, so the leaves are the ones the fabric routes through.
  const NicSpec& nics = cluster.node.nics;
  const Topology topology =
      Topology::build(cluster.topology, cluster.nodes, nics.count, nics.rails > 0 ? nics.rails : nics.count);
  for (int n = 0; n < cluster.nodes; ++n) leaf[static_cast<std::size_t>(n)] = topology.switch_of(n * nics.count);
  return leaf;
}

}  // namespace hpcsim

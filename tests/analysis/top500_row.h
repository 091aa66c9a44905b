#pragma once
// A TOP500 row's mapping (`map: {node, nodes, network}` in tests/data/hpc/top500-*.yaml) as the start of a
// `kind: mpi` scenario: the kind and the cluster; each test appends its placement and workload.
#include <string>

#include "configs/config_node.h"

namespace hpcsim::test {

inline std::string top500_cluster_yaml(const ConfigNode& map) {
  return "kind: mpi\ncluster: {node: " + map.get_string("node") + ", nodes: " + std::to_string(map.get_int("nodes")) +
         ", network: " + map.get_string("network") + "}\n";
}

}  // namespace hpcsim::test

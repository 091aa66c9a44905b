#pragma once
// What a topology builder produces: switches, undirected links, the switch of each endpoint.
#include <string>
#include <utility>
#include <vector>

#include "models/network/topology_spec.h"

namespace hpcsim {

struct TopologyGraph {
  int switches = 0;
  std::vector<std::pair<int, int>> links;
  std::vector<int> endpoint_switch;
};

// One builder per kind; each throws TopologyProblem with a message when the parameters cannot work.
struct TopologyProblem {
  std::string message;
};

TopologyGraph build_crossbar(int endpoints);
TopologyGraph build_fat_tree(const TopologySpec& spec, int nodes, int nics_per_node, int rails, bool rail_optimized);
TopologyGraph build_dragonfly(const TopologySpec& spec, int nodes, int nics_per_node);
TopologyGraph build_torus(const TopologySpec& spec, int nodes, int nics_per_node);
TopologyGraph build_edge_list(const TopologySpec& spec, int nodes, int nics_per_node);

}  // namespace hpcsim

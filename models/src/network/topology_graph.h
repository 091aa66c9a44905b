#pragma once
// What a topology builder produces: switches, undirected links, the switch of each endpoint.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/network/topology_spec.h"

namespace hpcsim {

struct TopologyGraph {
  int switches = 0;
  std::vector<std::pair<int, int>> links;
  std::vector<int> endpoint_switch;
  // Destination-based (D-mod-K) routing numbers endpoints leaf by leaf: index = switch x endpoint_ports +
  // the endpoint's port on its switch. 0: the most endpoints any switch holds.
  int endpoint_ports = 0;
  // Per switch, what the destination index is divided by before taking it modulo the number of next hops
  // there: on a fat tree the product of the up-port counts of the levels below. Empty: 1 everywhere.
  std::vector<std::uint64_t> route_divisor;
  // Set by build_fat_tree: the tree's shape, which lets routing find a switch's equally short next hops
  // without distances (Topology checks the adjacency against it before using it). levels 0: not a tree.
  struct Tree {
    int levels = 0;  // 2: leaves then spines; 3: leaves, then `up` aggregation switches per pod, then cores
    int leaves = 0;
    int up = 0;    // up-links of a leaf (spines, or aggregation switches of its pod)
    int half = 0;  // 3 levels: leaves per pod, and core switches per core group (an aggregation switch's up-links)
    int core0 = 0;  // 3 levels: the first core switch (the aggregation switches lie between the leaves and it)
  } tree;
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

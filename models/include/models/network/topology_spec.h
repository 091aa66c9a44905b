#pragma once
// How the switches of a cluster network are laid out: `cluster.topology` in a scenario, e.g.
//   topology: {kind: fat-tree, levels: 2, radix: 40, oversubscription: 1}
//   topology: {kind: rail-optimized, levels: 3, radix: 64}
//   topology: {kind: dragonfly, groups: 9, routers_per_group: 4, nodes_per_router: 2, global_links_per_router: 2}
//   topology: {kind: torus, dims: [4, 4, 4]}
//   topology: {kind: edge-list, switches: [a, b], links: [[a, b]], attach: [a, a, b, b]}
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "configs/source_loc.h"

namespace hpcsim {

enum class TopologyKind { crossbar, fat_tree, rail_optimized, dragonfly, torus, edge_list };

struct TopologySpec {
  TopologyKind kind = TopologyKind::crossbar;
  // fat-tree and rail-optimized: switch radix (ports), 2 or 3 levels, leaf down:up port ratio.
  int levels = 2;
  int radix = 0;
  double oversubscription = 1;
  // dragonfly
  int groups = 0;
  int routers_per_group = 0;
  int global_links_per_router = 0;
  // dragonfly and torus: nodes attached to each router.
  int nodes_per_router = 1;
  // torus: 2 or 3 dimension sizes.
  std::vector<int> dims;
  // edge-list: switch names, links between them (indices), the switch each node attaches to.
  std::vector<std::string> switch_names;
  std::vector<std::pair<int, int>> links;
  std::vector<int> attach;
  // Where the spec was written; errors found when the topology is built for a cluster are reported here.
  SourceLoc where;
};

const Schema& topology_spec_schema();
// Validates and reads a topology map; unknown switch names in an edge list are ConfigErrors at the name.
TopologySpec parse_topology_spec(const ConfigNode& node);
// "fat-tree", "torus", ... as written in YAML.
std::string topology_kind_name(TopologyKind kind);

}  // namespace hpcsim

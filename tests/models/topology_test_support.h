#pragma once
// Helpers the topology and routing tests share: a topology spec from YAML text, and one route as a list of
// directed links.
#include <cstdint>
#include <string>
#include <vector>

#include "configs/loader.h"
#include "models/network/topology.h"

namespace hpcsim::test {

inline TopologySpec spec_of(const std::string& yaml) {
  return parse_topology_spec(parse_config_text(yaml, "topo.yaml"));
}

inline std::vector<int> path(const Topology& t, int a, int b, std::uint64_t flow = 1) {
  std::vector<int> out;
  t.route(a, b, flow, out);
  return out;
}

}  // namespace hpcsim::test

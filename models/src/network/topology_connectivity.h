#pragma once
// Whether a built topology is one network: a Boost.Graph breadth-first search, once per topology
// (routing itself keeps its flat adjacency, which is several times faster per route).
#include <cstddef>
#include <utility>
#include <vector>

namespace hpcsim::topology_detail {

// The lowest-numbered switch not in switch 0's component; `switches` when every switch is connected.
std::size_t first_unreachable_switch(int switches, const std::vector<std::pair<int, int>>& links);

}  // namespace hpcsim::topology_detail

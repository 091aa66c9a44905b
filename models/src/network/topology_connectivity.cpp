#include "topology_connectivity.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/property_map/property_map.hpp>

namespace hpcsim::topology_detail {

// A compressed-sparse-row graph with each undirected link in both directions, searched breadth-first from
// switch 0: the CSR form builds in one sorted pass, where an adjacency_list allocates per switch.
std::size_t first_unreachable_switch(int switches, const std::vector<std::pair<int, int>>& links) {
  if (switches <= 0) return 0;
  std::vector<std::pair<int, int>> arcs;
  arcs.reserve(2 * links.size());
  for (const auto& [a, b] : links) {
    arcs.emplace_back(a, b);
    arcs.emplace_back(b, a);
  }
  using Graph = boost::compressed_sparse_row_graph<boost::directedS>;
  const Graph graph(boost::edges_are_unsorted_multi_pass, arcs.begin(), arcs.end(),
                    static_cast<Graph::vertices_size_type>(switches));
  std::vector<boost::default_color_type> color(static_cast<std::size_t>(switches), boost::white_color);
  boost::breadth_first_search(graph, boost::vertex(0, graph),
                              boost::color_map(boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, graph))));
  for (std::size_t s = 0; s < color.size(); ++s) {
    if (color[s] == boost::white_color) return s;
  }
  return color.size();
}

}  // namespace hpcsim::topology_detail

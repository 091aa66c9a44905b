#include "simgrid_graph_routing.h"

#include <functional>
#include <limits>
#include <queue>
#include <utility>

namespace hpcsim::simgrid_routing {

namespace {
constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
}

void floyd(int points, SimgridGraphRoutes& g) {
  const auto n = static_cast<std::size_t>(points);
  std::vector<std::vector<std::uint64_t>> cost(n, std::vector<std::uint64_t>(n, kNone));
  g.pred.assign(n, std::vector<int>(n, -1));
  for (const auto& [ends, links] : g.edges) {
    const auto [s, d] = ends;
    cost[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] = links.size();
    g.pred[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)] = s;
  }
  // SimGrid gives every point its loopback (one link) where the file declares no route to itself.
  for (std::size_t i = 0; i < n; ++i)
    if (cost[i][i] == kNone) cost[i][i] = 1, g.pred[i][i] = static_cast<int>(i);
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t a = 0; a < n; ++a) {
      if (cost[a][c] == kNone) continue;
      for (std::size_t b = 0; b < n; ++b) {
        if (cost[c][b] == kNone) continue;
        if (cost[a][b] == kNone || cost[a][c] + cost[c][b] < cost[a][b]) {
          cost[a][b] = cost[a][c] + cost[c][b];
          g.pred[a][b] = g.pred[c][b];
        }
      }
    }
}

void dijkstra(int points, const std::vector<int>& order, const std::vector<int>& sources, SimgridGraphRoutes& g) {
  const auto n = static_cast<std::size_t>(points);
  g.pred.assign(n, {});
  // The graph's node numbers are the points' order of first appearance; each node's out-edges in the order
  // the routes declared them (a symmetric route's reverse right after it).
  std::vector<int> node_of(n, -1);
  for (std::size_t k = 0; k < order.size(); ++k) node_of[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  std::vector<std::vector<std::pair<int, std::uint64_t>>> out(order.size());  // (node, links)
  for (const auto& [from, to] : g.edge_order) {
    const auto& links = g.edges.at({from, to});
    out[static_cast<std::size_t>(node_of[static_cast<std::size_t>(from)])].emplace_back(
        node_of[static_cast<std::size_t>(to)], links.size());
  }
  for (const int source : sources) {
    const int src = node_of[static_cast<std::size_t>(source)];
    if (src < 0) continue;  // a host no route names: no route from it
    std::vector<std::uint64_t> cost(order.size(), kNone);
    std::vector<int> pred(order.size(), -1);
    cost[static_cast<std::size_t>(src)] = 0;
    using Entry = std::pair<std::uint64_t, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    for (std::size_t v = 0; v < order.size(); ++v) queue.emplace(cost[v], static_cast<int>(v));
    while (!queue.empty()) {
      const int v = queue.top().second;
      queue.pop();
      // SimGrid relaxes from an unreachable node too, where its cost wraps around; nothing is reachable from it.
      if (cost[static_cast<std::size_t>(v)] == kNone) continue;
      for (const auto& [u, links] : out[static_cast<std::size_t>(v)]) {
        if (links + cost[static_cast<std::size_t>(v)] < cost[static_cast<std::size_t>(u)]) {
          pred[static_cast<std::size_t>(u)] = v;
          cost[static_cast<std::size_t>(u)] = links + cost[static_cast<std::size_t>(v)];
          queue.emplace(cost[static_cast<std::size_t>(u)], u);
        }
      }
    }
    std::vector<int>& row = g.pred[static_cast<std::size_t>(source)];
    row.assign(n, -1);
    for (std::size_t v = 0; v < order.size(); ++v)
      if (pred[v] >= 0) row[static_cast<std::size_t>(order[v])] = order[static_cast<std::size_t>(pred[v])];
  }
}

}  // namespace hpcsim::simgrid_routing

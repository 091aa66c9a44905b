#pragma once
// The routes of a SimGrid zone with Floyd or Dijkstra routing: the routes the file declares are edges between
// points (hosts and routers), each costing its number of links, and a host-to-host route is the cheapest chain
// of them, with ties broken as SimGrid breaks them (FloydZone.cpp's triple loop over the points in declaration
// order; DijkstraZone.cpp's priority queue over the points in order of first appearance in a route).
#include <cstdint>
#include <vector>

#include "models/mpi/simgrid_platform.h"

namespace hpcsim::simgrid_routing {

// g.edges and the point count in, g.pred out: pred[s][d] for every point s (Floyd).
void floyd(int points, SimgridGraphRoutes& g);
// The same for the points in `sources` (Dijkstra); `order`: the points in order of first appearance in a route.
void dijkstra(int points, const std::vector<int>& order, const std::vector<int>& sources, SimgridGraphRoutes& g);

}  // namespace hpcsim::simgrid_routing

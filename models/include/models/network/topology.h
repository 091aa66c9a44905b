#pragma once
// The switch graph of a cluster network, built from a TopologySpec for a number of nodes (flat adjacency
// arrays for the connectivity check, breadth-first distances and routing). Endpoints are NIC ports,
// numbered node-major (endpoint = node * nics_per_node + nic); each attaches to one switch. Routing takes
// a shortest path; where several next hops are equally short, the topology's Routing picks one: a
// deterministic hash of the flow (ecmp) or the destination alone (d-mod-k, routing.h). Distances are computed per destination switch on first use, only as far out as the routes asked
// for so far reach, and cached: nothing is all-pairs.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/network/routing.h"
#include "models/network/topology_spec.h"

namespace hpcsim {

class Topology {
 public:
  // Throws ConfigError at spec.where (or std::invalid_argument when the spec has no location) when the
  // topology cannot hold the endpoints or is disconnected.
  static Topology build(const TopologySpec& spec, int nodes, int nics_per_node, int rails,
                        Routing routing = Routing::ecmp);

  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  TopologyKind kind() const;
  int switch_count() const;
  int link_count() const;  // undirected switch-to-switch links
  int endpoint_count() const;
  int switch_of(int endpoint) const;
  std::pair<int, int> link_ends(int link) const;
  Routing routing() const;
  // Switch-to-switch hops from endpoint a's switch to endpoint b's, appended to `out` as directed link
  // indices (2 * link + 0 when crossed from its first end to its second, + 1 the other way). Under
  // d-mod-k the flow hash is not read: every switch forwards by the destination.
  void route(int from_endpoint, int to_endpoint, std::uint64_t flow_hash, std::vector<int>& out) const;
  // Whether routes on this fat tree find their next hops from the tree's shape (on by default where the
  // adjacency matches it) rather than by breadth-first distances; the routes are the same either way.
  // Tests turn it off to compare the two; turning it on where the shape does not hold leaves it off.
  bool tree_shortcut() const;
  void set_tree_shortcut(bool enabled);
  // Shortest distance in switch-to-switch hops.
  int hops(int from_endpoint, int to_endpoint) const;

 private:
  struct Impl;
  explicit Topology(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpcsim

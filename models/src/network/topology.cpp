#include "models/network/topology.h"

#include <algorithm>
#include <stdexcept>

#include "configs/config_error.h"
#include "topology_connectivity.h"
#include "topology_graph.h"

namespace hpcsim {

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser: a fixed, well-spread hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

[[noreturn]] void fail(const TopologySpec& spec, const std::string& message) {
  const std::string text = "bad " + topology_kind_name(spec.kind) + " topology: " + message;
  if (!spec.where.file.empty()) throw ConfigError(spec.where, text);
  throw std::invalid_argument(text);
}

}  // namespace

struct Topology::Impl {
  TopologyKind kind;
  Routing routing = Routing::ecmp;
  TopologyGraph g;
  std::vector<std::uint64_t> destination;  // d-mod-k: per endpoint, its index numbered leaf by leaf
  std::vector<int> adj_begin;           // per switch, into adj
  std::vector<std::pair<int, int>> adj;  // (neighbour, directed link)
  // Breadth-first distances towards one destination switch, grown level by level only as far as a
  // route needs: every switch on a shortest path from `from` is nearer the destination than `from`, so
  // the levels up to from's distance are enough. A fat-tree route inside a pod never labels the core.
  struct Reach {
    std::vector<int> dist;  // hops to the destination; -1: beyond the levels searched so far
    int level = 0;          // the deepest labelled level (all switches up to it are labelled)
  };
  mutable std::vector<Reach> reach;  // per destination switch, filled on first use

  // Distances towards `dst`, labelled at least as far as switch `from` (plain BFS over the flat
  // adjacency: Boost's BFS over the adjacency_list cost several times more and searched every switch;
  // Boost.Graph checks connectivity once, in topology_connectivity.cpp).
  // Each level is found by scanning for the previous one, which keeps no queue per destination.
  const std::vector<int>& distances(int dst, int from) const {
    Reach& r = reach[static_cast<std::size_t>(dst)];
    if (r.dist.empty()) {
      r.dist.assign(static_cast<std::size_t>(g.switches), -1);
      r.dist[static_cast<std::size_t>(dst)] = 0;
    }
    for (bool grew = true; r.dist[static_cast<std::size_t>(from)] < 0 && grew; ++r.level) {
      grew = false;
      for (int at = 0; at < g.switches; ++at) {
        if (r.dist[static_cast<std::size_t>(at)] != r.level) continue;
        for (int i = adj_begin[at]; i < adj_begin[at + 1]; ++i) {
          const int n = adj[static_cast<std::size_t>(i)].first;
          if (r.dist[static_cast<std::size_t>(n)] < 0) {
            r.dist[static_cast<std::size_t>(n)] = r.level + 1;
            grew = true;
          }
        }
      }
    }
    return r.dist;
  }
};

namespace {

// D-mod-K's destination index: endpoints numbered leaf by leaf, each at its port on its switch (ports in
// endpoint order), so consecutive indices sit side by side on a leaf and a leaf's endpoints spread over
// all of its up-ports.
void number_destinations(const TopologyGraph& g, std::vector<std::uint64_t>& out) {
  std::vector<int> used(static_cast<std::size_t>(g.switches), 0);
  std::vector<int> port(g.endpoint_switch.size());
  for (std::size_t e = 0; e < port.size(); ++e) port[e] = used[static_cast<std::size_t>(g.endpoint_switch[e])]++;
  const int ports = g.endpoint_ports > 0 ? g.endpoint_ports : *std::max_element(used.begin(), used.end());
  out.resize(port.size());
  for (std::size_t e = 0; e < port.size(); ++e) {
    out[e] = static_cast<std::uint64_t>(g.endpoint_switch[e]) * static_cast<std::uint64_t>(ports) +
             static_cast<std::uint64_t>(port[e]);
  }
}

}  // namespace

Topology::Topology(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

Topology Topology::build(const TopologySpec& spec, int nodes, int nics_per_node, int rails, Routing routing) {
  if (nodes < 1 || nics_per_node < 1) fail(spec, "needs at least one node with a NIC");
  auto impl = std::make_unique<Impl>();
  impl->kind = spec.kind;
  impl->routing = routing;
  try {
    switch (spec.kind) {
      case TopologyKind::crossbar: impl->g = build_crossbar(nodes * nics_per_node); break;
      case TopologyKind::fat_tree: impl->g = build_fat_tree(spec, nodes, nics_per_node, rails, false); break;
      case TopologyKind::rail_optimized: impl->g = build_fat_tree(spec, nodes, nics_per_node, rails, true); break;
      case TopologyKind::dragonfly: impl->g = build_dragonfly(spec, nodes, nics_per_node); break;
      case TopologyKind::torus: impl->g = build_torus(spec, nodes, nics_per_node); break;
      case TopologyKind::edge_list: impl->g = build_edge_list(spec, nodes, nics_per_node); break;
    }
  } catch (const TopologyProblem& p) {
    fail(spec, p.message);
  }
  TopologyGraph& g = impl->g;
  std::vector<int> degree(static_cast<std::size_t>(g.switches) + 1, 0);
  for (const auto& [a, b] : g.links) {
    ++degree[a];
    ++degree[b];
  }
  impl->adj_begin.assign(static_cast<std::size_t>(g.switches) + 1, 0);
  for (int s = 0; s < g.switches; ++s) impl->adj_begin[s + 1] = impl->adj_begin[s] + degree[s];
  impl->adj.resize(static_cast<std::size_t>(impl->adj_begin.back()));
  std::vector<int> fill(impl->adj_begin.begin(), impl->adj_begin.end() - 1);
  for (std::size_t l = 0; l < g.links.size(); ++l) {
    const auto [a, b] = g.links[l];
    impl->adj[fill[a]++] = {b, static_cast<int>(2 * l)};
    impl->adj[fill[b]++] = {a, static_cast<int>(2 * l + 1)};
  }
  const std::size_t lost = topology_detail::first_unreachable_switch(g.switches, g.links);
  if (lost < static_cast<std::size_t>(g.switches)) {
    const auto name = [&](std::size_t s) {
      return spec.kind == TopologyKind::edge_list ? "'" + spec.switch_names[s] + "'" : "switch " + std::to_string(s);
    };
    fail(spec, "the network is disconnected: " + name(lost) + " cannot reach " + name(0));
  }
  impl->reach.resize(static_cast<std::size_t>(g.switches));
  if (routing == Routing::d_mod_k) number_destinations(impl->g, impl->destination);
  return Topology(std::move(impl));
}

TopologyKind Topology::kind() const { return impl_->kind; }
Routing Topology::routing() const { return impl_->routing; }
int Topology::switch_count() const { return impl_->g.switches; }
int Topology::link_count() const { return static_cast<int>(impl_->g.links.size()); }
int Topology::endpoint_count() const { return static_cast<int>(impl_->g.endpoint_switch.size()); }
int Topology::switch_of(int endpoint) const { return impl_->g.endpoint_switch.at(static_cast<std::size_t>(endpoint)); }
std::pair<int, int> Topology::link_ends(int link) const { return impl_->g.links.at(static_cast<std::size_t>(link)); }

int Topology::hops(int from_endpoint, int to_endpoint) const {
  const int from = switch_of(from_endpoint);
  return impl_->distances(switch_of(to_endpoint), from)[static_cast<std::size_t>(from)];
}

void Topology::route(int from_endpoint, int to_endpoint, std::uint64_t flow_hash, std::vector<int>& out) const {
  const int dst = switch_of(to_endpoint);
  int at = switch_of(from_endpoint);
  if (at == dst) return;
  const std::vector<int>& dist = impl_->distances(dst, at);
  const Impl& m = *impl_;
  for (int hop = 0; at != dst; ++hop) {
    const int want = dist[static_cast<std::size_t>(at)] - 1;
    const int begin = m.adj_begin[at], end = m.adj_begin[at + 1];
    int choices = 0;
    for (int i = begin; i < end; ++i) choices += dist[m.adj[i].first] == want;
    // ECMP hashes the flow at every hop; destination-based routing reads only (switch, destination), as a
    // switch's forwarding table does.
    const std::uint64_t key =
        m.routing == Routing::ecmp
            ? mix(flow_hash ^ mix(static_cast<std::uint64_t>(hop)))
            : m.destination[static_cast<std::size_t>(to_endpoint)] /
                  (m.g.route_divisor.empty() ? 1 : m.g.route_divisor[static_cast<std::size_t>(at)]);
    int pick = static_cast<int>(key % static_cast<std::uint64_t>(choices));
    for (int i = begin; i < end; ++i) {
      if (dist[impl_->adj[i].first] == want && pick-- == 0) {
        out.push_back(impl_->adj[i].second);
        at = impl_->adj[i].first;
        break;
      }
    }
  }
}

}  // namespace hpcsim

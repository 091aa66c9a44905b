#include "models/network/topology.h"

#include <algorithm>
#include <stdexcept>

#include "configs/config_error.h"
#include "sim-core/random.h"
#include "topology_connectivity.h"
#include "topology_graph.h"

namespace hpcsim {

namespace {

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
  // A fat tree whose adjacency was checked against its shape (tree_layout_holds): a switch's equally short
  // next hops are then a known run of its neighbour list, found without distances or a scan.
  bool tree_shortcut = false;

  // The equally short next hops from switch `at` towards switch `dst` on a checked tree, as the run
  // adj[first, first + count) in adjacency order: exactly the neighbours the distance scan would find.
  void tree_candidates(int at, int dst, int& first, int& count) const {
    const TopologyGraph::Tree& t = g.tree;
    first = adj_begin[at];
    if (at < t.leaves) {  // a leaf: every up-link (its pod's aggregation switches, or every spine)
      count = t.up;
    } else if (t.levels == 2) {  // a spine: the destination leaf itself
      first += dst;
      count = 1;
    } else if (at < t.core0) {  // an aggregation switch
      const int pod = (at - t.leaves) / t.up;
      if (dst / t.half == pod) {  // down to the destination leaf of its own pod
        first += dst - pod * t.half;
        count = 1;
      } else {  // up: every core of its group, listed after its leaves
        first = adj_begin[at + 1] - t.half;
        count = t.half;
      }
    } else {  // a core: down to the destination pod's aggregation switch of the core's group
      first += dst / t.half;
      count = 1;
    }
  }

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

// Whether the adjacency is exactly the tree build_fat_tree describes (neighbour lists in link order): then
// on every shortest path a leaf may take any up-link (all lead equally far to any other leaf: within a pod
// through any of its aggregation switches, across pods through any of them and any core of their group),
// an aggregation switch any of its cores when the destination is in another pod and else only the
// destination leaf, and a core or spine only the one switch above the destination. Checked link by link so
// that a change to the builder falls back to the search instead of routing wrongly.
bool tree_layout_holds(const TopologyGraph& g, const std::vector<int>& adj_begin,
                       const std::vector<std::pair<int, int>>& adj) {
  const TopologyGraph::Tree& t = g.tree;
  if (t.levels != 2 && t.levels != 3) return false;
  if (t.leaves < 1 || t.up < 1 || (t.levels == 3 && t.half < 1)) return false;
  for (const int s : g.endpoint_switch) {
    if (s < 0 || s >= t.leaves) return false;
  }
  const auto lists = [&](int s, int degree, auto&& nth) {
    if (adj_begin[s + 1] - adj_begin[s] != degree) return false;
    for (int i = 0; i < degree; ++i) {
      if (adj[static_cast<std::size_t>(adj_begin[s] + i)].first != nth(i)) return false;
    }
    return true;
  };
  if (t.levels == 2) {
    if (g.switches != t.leaves + t.up) return false;
    for (int l = 0; l < t.leaves; ++l) {
      if (!lists(l, t.up, [&](int j) { return t.leaves + j; })) return false;
    }
    for (int s = t.leaves; s < g.switches; ++s) {
      if (!lists(s, t.leaves, [](int i) { return i; })) return false;
    }
    return true;
  }
  const int pods = (t.leaves + t.half - 1) / t.half;
  const int agg0 = t.leaves, core0 = t.core0;
  if (core0 != agg0 + pods * t.up || g.switches != core0 + t.up * t.half) return false;
  for (int l = 0; l < t.leaves; ++l) {
    if (!lists(l, t.up, [&](int j) { return agg0 + (l / t.half) * t.up + j; })) return false;
  }
  for (int pod = 0; pod < pods; ++pod) {
    const int in_pod = std::min(t.half, t.leaves - pod * t.half);
    for (int j = 0; j < t.up; ++j) {
      const auto nth = [&](int i) { return i < in_pod ? pod * t.half + i : core0 + j * t.half + (i - in_pod); };
      if (!lists(agg0 + pod * t.up + j, in_pod + t.half, nth)) return false;
    }
  }
  for (int c = core0; c < g.switches; ++c) {
    const int group = (c - core0) / t.half;
    if (!lists(c, pods, [&](int pod) { return agg0 + pod * t.up + group; })) return false;
  }
  return true;
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
  impl->tree_shortcut = tree_layout_holds(impl->g, impl->adj_begin, impl->adj);
  return Topology(std::move(impl));
}

TopologyKind Topology::kind() const { return impl_->kind; }
Routing Topology::routing() const { return impl_->routing; }
bool Topology::tree_shortcut() const { return impl_->tree_shortcut; }
void Topology::set_tree_shortcut(bool enabled) {
  impl_->tree_shortcut = enabled && tree_layout_holds(impl_->g, impl_->adj_begin, impl_->adj);
}
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
  const Impl& m = *impl_;
  const std::vector<int>* dist = m.tree_shortcut ? nullptr : &m.distances(dst, at);
  for (int hop = 0; at != dst; ++hop) {
    // The equally short next hops, in adjacency order: a run of the neighbour list on a checked tree, else
    // the neighbours one hop nearer than `at` by breadth-first distance.
    int first = 0, choices = 0;
    const int begin = m.adj_begin[at], end = m.adj_begin[at + 1];
    int want = 0;
    if (dist == nullptr) {
      m.tree_candidates(at, dst, first, choices);
    } else {
      want = (*dist)[static_cast<std::size_t>(at)] - 1;
      for (int i = begin; i < end; ++i) choices += (*dist)[m.adj[i].first] == want;
    }
    // ECMP hashes the flow at every hop; destination-based routing reads only (switch, destination), as a
    // switch's forwarding table does.
    const std::uint64_t key =
        m.routing == Routing::ecmp
            ? mix64(flow_hash ^ mix64(static_cast<std::uint64_t>(hop)))
            : m.destination[static_cast<std::size_t>(to_endpoint)] /
                  (m.g.route_divisor.empty() ? 1 : m.g.route_divisor[static_cast<std::size_t>(at)]);
    int pick = static_cast<int>(key % static_cast<std::uint64_t>(choices));
    if (dist == nullptr) {
      const std::pair<int, int>& next = m.adj[static_cast<std::size_t>(first + pick)];
      out.push_back(next.second);
      at = next.first;
      continue;
    }
    for (int i = begin; i < end; ++i) {
      if ((*dist)[m.adj[i].first] == want && pick-- == 0) {
        out.push_back(m.adj[i].second);
        at = m.adj[i].first;
        break;
      }
    }
  }
}

}  // namespace hpcsim

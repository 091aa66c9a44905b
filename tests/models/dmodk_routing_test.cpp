// Destination-based (D-mod-K) routing, as an InfiniBand subnet manager programs a fat tree: each switch
// forwards by the destination alone, leaves spread their endpoints over every up-port, and a shift
// permutation crosses the tree with one flow per link.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/network/cluster_fabric.h"
#include "models/network/topology.h"
#include "models/platform/cluster_config.h"
#include "topology_test_support.h"

using namespace hpcsim;
using hpcsim::test::path;
using hpcsim::test::spec_of;

namespace {

// The most flows any directed switch link carries when endpoint e sends to (e + shift) mod n, for every e.
int busiest_link_under_shift(const Topology& t, int shift) {
  const int n = t.endpoint_count();
  std::map<int, int> load;
  for (int e = 0; e < n; ++e) {
    for (int link : path(t, e, (e + shift) % n, static_cast<std::uint64_t>(e) * 7919)) ++load[link];
  }
  int most = 0;
  for (const auto& [link, flows] : load) most = std::max(most, flows);
  return most;
}

}  // namespace

TEST_CASE("D-mod-K forwards by destination: one next hop per switch and destination", "[topology][dmodk]") {
  // radix 8, 3 levels: pods of 4 leaves x 4 endpoints, 4 aggregation switches per pod, 16 cores.
  const Topology t = Topology::build(spec_of("kind: fat-tree\nlevels: 3\nradix: 8\n"), 64, 1, 1, Routing::d_mod_k);
  CHECK(t.routing() == Routing::d_mod_k);
  // Every route to one destination leaves a given switch by the same link, whatever the source or flow:
  // what a forwarding table indexed by destination can express.
  for (int dst = 0; dst < 64; dst += 5) {
    std::map<int, int> out_of;  // switch -> directed link taken towards dst
    for (int src = 0; src < 64; ++src) {
      if (src == dst) continue;
      int at = t.switch_of(src);
      for (int link : path(t, src, dst, static_cast<std::uint64_t>(src) * 31 + 17)) {
        const auto [inserted, fresh] = out_of.emplace(at, link);
        CHECK(inserted->second == link);
        const auto [a, b] = t.link_ends(link / 2);
        at = link % 2 == 0 ? b : a;
      }
      CHECK(at == t.switch_of(dst));
    }
  }
  // The up-port of a leaf is the destination's port on its own leaf: the 4 endpoints of leaf 1 are
  // reached from leaf 0 through 4 different aggregation switches.
  std::set<int> first_hops;
  for (int dst = 4; dst < 8; ++dst) first_hops.insert(path(t, 0, dst).front());
  CHECK(first_hops.size() == 4);
}

TEST_CASE("D-mod-K routes every shift permutation with one flow per link: ECMP collides", "[topology][dmodk]") {
  const TopologySpec two = spec_of("kind: fat-tree\nradix: 8\n");
  const TopologySpec three = spec_of("kind: fat-tree\nlevels: 3\nradix: 8\n");
  const Topology d2 = Topology::build(two, 32, 1, 1, Routing::d_mod_k);
  const Topology d3 = Topology::build(three, 128, 1, 1, Routing::d_mod_k);
  const Topology e3 = Topology::build(three, 128, 1, 1, Routing::ecmp);
  int ecmp_worst = 0;
  for (int shift = 1; shift < 32; ++shift) {
    INFO("shift " << shift);
    CHECK(busiest_link_under_shift(d2, shift) == 1);
  }
  for (int shift = 1; shift < 128; shift += 3) {
    INFO("shift " << shift);
    CHECK(busiest_link_under_shift(d3, shift) == 1);
    ecmp_worst = std::max(ecmp_worst, busiest_link_under_shift(e3, shift));
  }
  CHECK(ecmp_worst > 1);  // hashing puts two flows on one uplink somewhere: the contrast is real
}

TEST_CASE("A rail rotation maps D-mod-K routes onto D-mod-K routes", "[topology][dmodk]") {
  // 128 DGX-like nodes of 8 NICs on 8 rails, radix 16 (8 endpoints per leaf): rings across leaf groups.
  // Under a rotation of the rails, rail r's route from node a to node b must be the image of rail 0's
  // under one switch permutation (leaves rotate with their rail, the core switches with them).
  const Topology t =
      Topology::build(spec_of("kind: rail-optimized\nlevels: 3\nradix: 16\n"), 128, 8, 8, Routing::d_mod_k);
  for (int r = 1; r < 8; ++r) {
    std::map<int, int> image;  // switch on rail 0's routes -> switch on rail r's
    bool consistent = true;
    for (int a = 0; a < 128; ++a) {
      const int b = (a + 9) % 128;  // a ring step that crosses leaf groups and pods
      std::vector<int> p0 = path(t, a * 8, b * 8), pr = path(t, a * 8 + r, b * 8 + r);
      REQUIRE(p0.size() == pr.size());
      int at0 = t.switch_of(a * 8), atr = t.switch_of(a * 8 + r);
      for (std::size_t k = 0; k <= p0.size(); ++k) {
        const auto [it, fresh] = image.emplace(at0, atr);
        consistent = consistent && it->second == atr;
        if (k == p0.size()) break;
        const auto [x0, y0] = t.link_ends(p0[k] / 2);
        const auto [xr, yr] = t.link_ends(pr[k] / 2);
        at0 = p0[k] % 2 == 0 ? y0 : x0;
        atr = pr[k] % 2 == 0 ? yr : xr;
      }
    }
    std::set<int> targets;
    for (const auto& [from, to] : image) targets.insert(to);
    INFO("rail " << r);
    CHECK(consistent);
    CHECK(targets.size() == image.size());  // one-to-one
  }
}

TEST_CASE("Routing comes from the network spec, cluster.routing overrides it", "[network][dmodk]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  auto cluster = [&](const std::string& yaml) {
    return parse_cluster(parse_config_text(yaml, "cluster.yaml"), catalog);
  };
  CHECK(cluster("{node: dgx-h100, nodes: 2, network: ib-ndr}").network->routing == Routing::d_mod_k);
  CHECK(cluster("{node: dgx-h100, nodes: 2, network: opa-100}").network->routing == Routing::d_mod_k);
  CHECK(cluster("{node: dgx-h100, nodes: 2, network: roce-400g}").network->routing == Routing::ecmp);
  CHECK(cluster("{node: dgx-h100, nodes: 2, network: efa-400g}").network->routing == Routing::ecmp);
  CHECK(cluster("{node: dgx-h100, nodes: 2, network: eth-25g-tcp}").network->routing == Routing::ecmp);
  CHECK(cluster("{node: dgx-h100, nodes: 2, network: ib-ndr, routing: ecmp}").network->routing == Routing::ecmp);
  CHECK(cluster("{node: dgx-h100, nodes: 2, network: roce-400g, routing: d-mod-k}").network->routing ==
        Routing::d_mod_k);
  auto error_of = [&](const std::string& yaml) -> std::string {
    try {
      cluster(yaml);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(error_of("{node: dgx-h100, nodes: 2, network: ib-ndr, routing: dmodk}"),
             Catch::Contains("cluster.yaml:1:54") && Catch::Contains("d-mod-k"));
  CHECK_THAT(error_of("{node: dgx-h100, routing: ecmp}"), Catch::Contains("cluster.routing needs a cluster.network"));
}

TEST_CASE("The fat-tree shortcut routes exactly as the distance search", "[topology][dmodk]") {
  // Next hops read from the tree's shape must be the very neighbours the breadth-first search picks, in
  // every kind of fat tree the builder makes: 2 and 3 levels, oversubscribed, rail-optimized, a partial
  // last pod, under both routings.
  struct Case {
    std::string yaml;
    int nodes, nics, rails;
  };
  const std::vector<Case> cases = {
      {"kind: fat-tree\nlevels: 2\nradix: 8\n", 30, 1, 1},
      {"kind: fat-tree\nlevels: 3\nradix: 8\n", 64, 1, 1},
      {"kind: fat-tree\nlevels: 3\nradix: 8\n", 41, 1, 1},  // a partial pod and a partial leaf
      {"kind: fat-tree\nlevels: 3\nradix: 8\noversubscription: 3\n", 60, 1, 1},
      {"kind: fat-tree\nlevels: 2\nradix: 12\noversubscription: 2\n", 50, 1, 1},
      {"kind: rail-optimized\nlevels: 3\nradix: 8\n", 22, 4, 4},
      {"kind: rail-optimized\nlevels: 2\nradix: 8\n", 7, 4, 2},
      {"kind: rail-optimized\nlevels: 3\nradix: 12\noversubscription: 2\n", 36, 2, 2},
  };
  for (const Case& c : cases) {
    for (const Routing routing : {Routing::d_mod_k, Routing::ecmp}) {
      INFO(c.yaml << c.nodes << " nodes, " << kRoutingNames.name(routing));
      const Topology fast = Topology::build(spec_of(c.yaml), c.nodes, c.nics, c.rails, routing);
      Topology slow = Topology::build(spec_of(c.yaml), c.nodes, c.nics, c.rails, routing);
      REQUIRE(fast.tree_shortcut());
      slow.set_tree_shortcut(false);
      REQUIRE_FALSE(slow.tree_shortcut());
      const int n = fast.endpoint_count();
      int differ = 0;
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
          const std::uint64_t flow = static_cast<std::uint64_t>(a) * 7919 + b;
          differ += path(fast, a, b, flow) != path(slow, a, b, flow);
        }
      }
      CHECK(differ == 0);
    }
  }
  // Not trees: no shortcut, even when asked for.
  Topology fly = Topology::build(spec_of("kind: dragonfly\ngroups: 3\nrouters_per_group: 2\nglobal_links_per_router: 1\n"
                                         "nodes_per_router: 2\n"),
                                 12, 1, 1, Routing::d_mod_k);
  fly.set_tree_shortcut(true);
  CHECK_FALSE(fly.tree_shortcut());
}

#include <catch2/catch.hpp>
#include <set>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/network/topology.h"
#include "topology_test_support.h"

using namespace hpcsim;
using hpcsim::test::path;
using hpcsim::test::spec_of;

namespace {

std::string build_error(const std::string& yaml, int nodes, int nics = 1, int rails = 1) {
  try {
    Topology::build(spec_of(yaml), nodes, nics, rails);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("A crossbar is one switch", "[topology]") {
  const Topology t = Topology::build(TopologySpec{}, 4, 2, 2);
  CHECK(t.switch_count() == 1);
  CHECK(path(t, 0, 7).empty());
}

TEST_CASE("A 2-level fat-tree crosses a spine between leaves, and ECMP spreads flows over spines", "[topology]") {
  // radix 8, 1:1: leaves of 4 endpoints and 4 uplinks.
  const Topology t = Topology::build(spec_of("kind: fat-tree\nradix: 8\n"), 16, 1, 1);
  CHECK(t.switch_count() == 4 + 4);
  CHECK(t.link_count() == 16);
  CHECK(path(t, 0, 3).empty());
  CHECK(path(t, 0, 4).size() == 2);
  std::set<int> first_hops;
  for (std::uint64_t flow = 0; flow < 64; ++flow) first_hops.insert(path(t, 0, 4, flow).front());
  CHECK(first_hops.size() == 4);
  CHECK(path(t, 0, 4, 7) == path(t, 0, 4, 7));  // deterministic per flow
}

TEST_CASE("A 3-level fat-tree crosses the core between pods", "[topology]") {
  // radix 4: pods of 2 leaves x 2 endpoints; 3 pods for 12 endpoints.
  const Topology t = Topology::build(spec_of("kind: fat-tree\nlevels: 3\nradix: 4\n"), 12, 1, 1);
  CHECK(t.switch_count() == 6 + 6 + 4);
  CHECK(path(t, 0, 2).size() == 2);   // same pod, other leaf
  CHECK(path(t, 0, 4).size() == 4);   // other pod
  CHECK(t.hops(0, 11) == 4);
}

TEST_CASE("A rail-optimized fat-tree puts each rail of a node group on its own leaf", "[topology]") {
  // 16 nodes x 8 NICs on 8 rails, radix 16 (8 down): leaves hold NIC i of a group of 8 nodes.
  const Topology t = Topology::build(spec_of("kind: rail-optimized\nradix: 16\n"), 16, 8, 8);
  CHECK(t.switch_count() == 16 + 8);
  CHECK(t.switch_of(0 * 8 + 3) == t.switch_of(7 * 8 + 3));  // same rail, same group: one leaf
  CHECK(t.switch_of(0 * 8 + 3) != t.switch_of(0 * 8 + 4));  // other rail
  CHECK(path(t, 0 * 8 + 3, 7 * 8 + 3).empty());
  CHECK(path(t, 0 * 8 + 3, 8 * 8 + 3).size() == 2);  // other group, same rail: via a spine
}

TEST_CASE("A 1,024-node DGX rail-optimized fabric builds without all-pairs state", "[topology]") {
  const Topology t = Topology::build(spec_of("kind: rail-optimized\nlevels: 3\nradix: 64\n"), 1024, 8, 8);
  CHECK(t.endpoint_count() == 8192);
  CHECK(t.switch_count() == 256 + 256 + 1024);
  CHECK(path(t, 0, 8191 - 7).size() == 4);
}

TEST_CASE("Torus and dragonfly routes are shortest paths", "[topology]") {
  const Topology torus = Topology::build(spec_of("kind: torus\ndims: [4, 4]\n"), 16, 1, 1);
  CHECK(torus.link_count() == 32);
  CHECK(torus.hops(0, 15) == 2);  // (0,0) -> (3,3) wraps both ways
  CHECK(torus.hops(0, 10) == 4);  // (0,0) -> (2,2)
  const Topology t3 = Topology::build(spec_of("kind: torus\ndims: [2, 2, 2]\n"), 8, 1, 1);
  CHECK(t3.link_count() == 12);
  const Topology fly = Topology::build(
      spec_of("kind: dragonfly\ngroups: 5\nrouters_per_group: 4\nnodes_per_router: 2\nglobal_links_per_router: 1\n"),
      40, 1, 1);
  for (int a = 0; a < 40; a += 3) {
    for (int b = 0; b < 40; b += 5) CHECK(fly.hops(a, b) <= 3);  // local, global, local
  }
}

TEST_CASE("An explicit edge list routes over its links", "[topology]") {
  const Topology t = Topology::build(spec_of("kind: edge-list\nswitches: [a, b, c]\nlinks: [[a, b], [b, c]]\n"
                                             "attach: [a, c]\n"),
                                     2, 1, 1);
  CHECK(path(t, 0, 1).size() == 2);
}

TEST_CASE("Bad topology parameters are clear errors at the topology", "[topology][errors]") {
  CHECK_THAT(build_error("kind: fat-tree\nradix: 8\n", 40),
             Catch::Contains("topo.yaml:1:1:") && Catch::Contains("holds at most 8 leaves") &&
                 Catch::Contains("needs 10 leaves"));
  CHECK_THAT(build_error("kind: fat-tree\nlevels: 3\nradix: 4\n", 20), Catch::Contains("at most 4 pods"));
  CHECK_THAT(build_error("kind: fat-tree\nradix: 8\noversubscription: 2\n", 4), Catch::Contains("cannot split"));
  CHECK_THAT(build_error("kind: edge-list\nswitches: [a, b, c]\nlinks: [[a, b]]\nattach: [a, b]\n", 2),
             Catch::Contains("disconnected") && Catch::Contains("'c'"));
  CHECK_THAT(build_error("kind: edge-list\nswitches: [a]\nlinks: [[a, a]]\nattach: [a]\n", 1),
             Catch::Contains("topo.yaml:3:9:"));
  CHECK_THAT(build_error("kind: edge-list\nswitches: [a, b]\nlinks: [[a, b]]\nattach: [a]\n", 2),
             Catch::Contains("attach lists 1"));
  CHECK_THAT(build_error("kind: torus\ndims: [2, 2]\n", 5), Catch::Contains("holds 4 nodes, not 5"));
  CHECK_THAT(build_error("kind: dragonfly\ngroups: 9\nrouters_per_group: 2\nglobal_links_per_router: 1\n", 4),
             Catch::Contains("must reach 8 other groups"));
  try {
    spec_of("kind: torus\ndims: [4]\n");
    FAIL("a 1-D torus parsed");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("topo.yaml:2:7:"));
  }
  try {
    spec_of("kind: torus\nradix: 4\ndims: [4, 4]\n");
    FAIL("a torus took a radix");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("topo.yaml:2:1:") && Catch::Contains("not a parameter of a torus"));
  }
  // Switches and links counted from the parameters before any is made, held to the links limit (a radix of
  // 40,000,000 for 32 nodes made 160,000,000 links: a minute and 9.5 GB; the dragonfly and torus below hung).
  CHECK_THAT(build_error("kind: rail-optimized\nradix: 40000000\n", 32, 8, 8),
             Catch::Contains("topo.yaml:") && Catch::Contains("160000000 links") && Catch::Contains("--limit links=N"));
  CHECK_THAT(build_error("kind: fat-tree\nlevels: 3\nradix: 4000000\n", 16),
             Catch::Contains("4000002000001 switches and 4000002000000 links"));
  CHECK_THAT(build_error("kind: dragonfly\ngroups: 100000\nrouters_per_group: 1000\nglobal_links_per_router: 1000\n", 16),
             Catch::Contains("100000000 switches"));
  CHECK_THAT(build_error("kind: torus\ndims: [100000, 100000, 100]\n", 16), Catch::Contains("1000000000000 switches"));
  CHECK_THAT(build_error("kind: fat-tree\nradix: 400000\n", 16), Catch::Contains("no error"));  // 400,001 switches and links
  TopologySpec no_location;
  no_location.kind = TopologyKind::torus;
  no_location.dims = {2, 2};
  CHECK_THROWS_AS(Topology::build(no_location, 9, 1, 1), std::invalid_argument);
}

TEST_CASE("Routes and hops do not depend on which routes were asked before", "[topology]") {
  // Distances towards a destination are searched only as far as the routes asked so far need; a far
  // route asked after near ones must still find the shortest paths a fresh search finds.
  const TopologySpec spec = spec_of("kind: fat-tree\nlevels: 3\nradix: 4\n");
  const Topology near_first = Topology::build(spec, 12, 1, 1);
  const Topology far_first = Topology::build(spec, 12, 1, 1);
  for (int a = 0; a < 12; ++a) {
    for (int b = 0; b < 12; ++b) {
      const int fa = 11 - a, fb = 11 - b;
      CHECK(static_cast<int>(path(far_first, fa, fb, 3).size()) == far_first.hops(fa, fb));
    }
  }
  for (int a = 0; a < 12; ++a) {
    for (int b = 0; b < 12; ++b) {
      const Topology fresh = Topology::build(spec, 12, 1, 1);
      const std::vector<int> p = path(near_first, a, b, 3);
      CHECK(p == path(fresh, a, b, 3));
      CHECK(p == path(far_first, a, b, 3));
      CHECK(near_first.hops(a, b) == static_cast<int>(p.size()));
      CHECK(fresh.hops(b, a) == near_first.hops(b, a));
    }
  }
}

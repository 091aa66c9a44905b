// A SimGrid <cluster>'s routes, computed when asked (no table of every host pair): src's private link,
// the backbone, dst's private link (its DOWN direction when SPLITDUPLEX); a declared route still serves
// hosts outside the cluster, and a pair without a route is refused every time it is asked.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "models/mpi/simgrid_platform.h"

namespace hpcsim {
namespace {

SimgridPlatform platform(const std::string& sharing) {
  return parse_simgrid_platform(
      "<platform version='4.1'>\n"
      "<zone id='z' routing='Full'>\n"
      "<host id='front' speed='1Gf'/><host id='lonely' speed='1Gf'/>\n"
      "<link id='uplink' bandwidth='1GBps' latency='5us'/>\n"
      "<route src='front' dst='c2'><link_ctn id='uplink'/></route>\n"
      "</zone>\n"
      "<cluster id='c' prefix='c' radical='0-3' speed='1Gf' bw='1GBps' lat='1us' bb_bw='10GBps' bb_lat='2us'"
      " sharing_policy='" + sharing + "'/>\n"
      "</platform>",
      "cluster.xml");
}

int link(const SimgridPlatform& p, const std::string& name) {
  for (std::size_t i = 0; i < p.links.size(); ++i)
    if (p.links[i].name == name) return static_cast<int>(i);
  return -1;
}

TEST_CASE("a cluster's route crosses src's link, the backbone and dst's link, computed when asked") {
  const SimgridPlatform p = platform("SPLITDUPLEX");
  CHECK(p.routes.size() == 1);  // the declared one only: no per-pair table for the cluster
  const int c1 = p.host_index("c1"), c3 = p.host_index("c3");
  const auto r = p.links_between(c3, c1);
  REQUIRE(r);
  REQUIRE(r->size() == 3);
  CHECK((*r)[0].link == link(p, "c_link_3"));
  CHECK_FALSE((*r)[0].down);
  CHECK((*r)[1].link == link(p, "c_backbone"));
  CHECK((*r)[2].link == link(p, "c_link_1"));
  CHECK((*r)[2].down);  // SPLITDUPLEX: the destination's link is entered downwards
  CHECK_FALSE(platform("SHARED").links_between(c3, c1)->at(2).down);
  CHECK_FALSE(p.links_between(c1, c1));  // no declared loopback
  // The declared route (symmetrical by default) serves the front-end both ways.
  const int front = p.host_index("front"), c2 = p.host_index("c2");
  REQUIRE(p.links_between(front, c2));
  CHECK(p.links_between(c2, front)->at(0).link == link(p, "uplink"));
  CHECK_FALSE(p.links_between(front, c1));
}

TEST_CASE("the machine's routes: latency and resources of a cluster route, refusal of a missing one") {
  SimgridMachine m(platform("SHARED"));
  const SimgridPlatform& p = m.platform();
  const MpiRoute& r = m.route(p.host_index("c0"), p.host_index("c2"));
  CHECK(r.forward.size() == 3);
  CHECK(r.latency_s == Approx(4e-6));
  CHECK(r.bandwidth == Approx(1e9));
  CHECK(&m.route(p.host_index("c0"), p.host_index("c2")) == &r);  // built once, kept
  const MpiRoute& self = m.route(p.host_index("c0"), p.host_index("c0"));
  CHECK(self.bandwidth == Approx(1e10));  // SimGrid's default loopback
  const int lonely = p.host_index("lonely"), c1 = p.host_index("c1");
  CHECK_THROWS_AS(m.route(lonely, c1), std::invalid_argument);
  CHECK_THROWS_AS(m.route(lonely, c1), std::invalid_argument);  // asked again: still refused
}

TEST_CASE("a 4,096-host cluster is read without a table of its 16.8 million routes") {
  const SimgridPlatform p = parse_simgrid_platform(
      "<platform version='4.1'><cluster id='big' prefix='n' radical='0-4095' speed='1Gf' bw='1GBps' lat='1us'"
      " bb_bw='100GBps' bb_lat='1us'/></platform>",
      "big.xml");
  CHECK(p.hosts.size() == 4096);
  CHECK(p.routes.empty());
  CHECK(p.links_between(4095, 0)->size() == 3);
}

}  // namespace
}  // namespace hpcsim

namespace hpcsim {
namespace {

TEST_CASE("a cluster's loopback and limiter links: the host's own route, and both ends of every other") {
  const SimgridPlatform p = parse_simgrid_platform(
      "<platform version='4.1'><cluster id='c' prefix='c' radical='0-3' speed='1Gf' bw='1GBps' lat='1us' bb_bw='10GBps'"
      " loopback_bw='5GBps' loopback_lat='0.1us' limiter_link='2GBps'/></platform>",
      "limited.xml");
  const auto name = [&](const SimgridLinkUse& u) { return p.links[static_cast<std::size_t>(u.link)].name; };
  const auto r = p.links_between(p.host_index("c1"), p.host_index("c3"));
  REQUIRE(r);
  REQUIRE(r->size() == 5);
  CHECK(name((*r)[0]) == "c_link_1_limiter");
  CHECK(name((*r)[1]) == "c_link_1");
  CHECK(name((*r)[2]) == "c_backbone");
  CHECK(name((*r)[3]) == "c_link_3");
  CHECK(name((*r)[4]) == "c_link_3_limiter");
  const SimgridLink& limiter = p.links[static_cast<std::size_t>((*r)[0].link)];
  CHECK((limiter.bandwidth == 2e9 && limiter.latency_s == 0 && limiter.sharing == LinkSharing::shared));
  const auto self = p.links_between(p.host_index("c2"), p.host_index("c2"));
  REQUIRE(self);
  REQUIRE(self->size() == 1);
  const SimgridLink& loopback = p.links[static_cast<std::size_t>((*self)[0].link)];
  CHECK((loopback.bandwidth == 5e9 && loopback.latency_s == Approx(1e-7) && loopback.sharing == LinkSharing::fatpipe));
  // Without them a host's own route is the machine's default loopback (none here), and routes have three links.
  const SimgridPlatform plain = parse_simgrid_platform(
      "<platform version='4.1'><cluster id='c' prefix='c' radical='0-1' speed='1Gf' bw='1GBps' lat='1us' bb_bw='10GBps'/>"
      "</platform>",
      "plain.xml");
  CHECK(!plain.links_between(0, 0));
  CHECK(plain.links_between(0, 1)->size() == 3);
  CHECK_THROWS_WITH(parse_simgrid_platform("<platform version='4.1'><cluster id='c' prefix='c' radical='0-1' speed='1Gf' "
                                           "bw='1GBps' lat='1us' loopback_lat='1us'/></platform>",
                                           "bad.xml"),
                    Catch::Contains("loopback_lat needs loopback_bw"));
}

}  // namespace
}  // namespace hpcsim

namespace hpcsim {
namespace {

TEST_CASE("a TORUS cluster routes dimension by dimension, the shorter way round, as SimGrid's TorusZone does") {
  const SimgridPlatform p = parse_simgrid_platform(
      "<platform version='4.1'><cluster id='t' prefix='n' radical='0-15' speed='1Gf' bw='1GBps' lat='1us'"
      " topology='TORUS' topo_parameters='4,4' sharing_policy='SPLITDUPLEX'/></platform>",
      "torus.xml");
  const auto route = [&](int a, int b) {
    std::string out;
    const auto uses = p.links_between(a, b);
    REQUIRE(uses);
    for (const SimgridLinkUse& u : *uses)
      out += (out.empty() ? "" : " ") + p.links[static_cast<std::size_t>(u.link)].name + (u.down ? ":down" : "");
    return out;
  };
  CHECK(route(0, 1) == "t_link_from_0_to_1");
  CHECK(route(0, 3) == "t_link_from_3_to_0:down");                       // round the ring, one hop
  CHECK(route(0, 5) == "t_link_from_0_to_1 t_link_from_1_to_5");       // x first, then y
  CHECK(route(2, 0) == "t_link_from_1_to_2:down t_link_from_0_to_1:down");  // two either way: SimGrid goes down
  CHECK(route(0, 15) == "t_link_from_3_to_0:down t_link_from_15_to_3:down");
  CHECK(p.links.size() == 32);  // two links a host, no private links or backbone
  CHECK_THROWS_WITH(parse_simgrid_platform("<platform version='4.1'><cluster id='t' prefix='n' radical='0-14' speed='1Gf' "
                                           "bw='1GBps' lat='1us' topology='TORUS' topo_parameters='4,4'/></platform>",
                                           "short.xml"),
                    Catch::Contains("holds 16 hosts but the radical names 15"));
  CHECK_THROWS_WITH(parse_simgrid_platform("<platform version='4.1'><cluster id='t' prefix='n' radical='0-3' speed='1Gf' "
                                           "bw='1GBps' lat='1us' topology='DRAGONFLY' topo_parameters='1,1'/></platform>",
                                           "fly.xml"),
                    Catch::Contains("(FLAT, TORUS)"));
}

}  // namespace
}  // namespace hpcsim

// SimGrid platforms with Floyd or Dijkstra routing: the declared routes are edges between hosts and routers,
// a host's route to another is the chain of fewest links, ties broken as SimGrid's FloydZone (points in
// declaration order) and DijkstraZone (points in order of first appearance in a route) break them, and a
// symmetrical route's reverse runs its links backwards (a SPLITDUPLEX link in its other direction).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/config_error.h"
#include "models/mpi/simgrid_platform.h"

namespace hpcsim {
namespace {

std::string names(const SimgridPlatform& p, int a, int b) {
  const auto r = p.links_between(a, b);
  if (!r) return "none";
  std::string out;
  for (const SimgridLinkUse& u : *r) out += (out.empty() ? "" : " ") + p.links[static_cast<std::size_t>(u.link)].name + (u.down ? ":down" : "");
  return out;
}

SimgridPlatform star(const std::string& routing) {
  return parse_simgrid_platform(
      "<platform version='4.1'><zone id='z' routing='" + routing + "'>\n"
      "<host id='h0' speed='1Gf'/><host id='h1' speed='1Gf'/><host id='h2' speed='1Gf'/><host id='lonely' speed='1Gf'/>\n"
      "<router id='r0'/><router id='r1'/>\n"
      "<link id='l0' bandwidth='1GBps'/><link id='l1' bandwidth='1GBps'/><link id='l2' bandwidth='1GBps' sharing_policy='SPLITDUPLEX'/>\n"
      "<link id='core' bandwidth='2GBps' latency='5us'/>\n"
      "<route src='h0' dst='r0'><link_ctn id='l0'/></route>\n"
      "<route src='h1' dst='r0'><link_ctn id='l1'/></route>\n"
      "<route src='h2' dst='r1'><link_ctn id='l2' direction='UP'/></route>\n"
      "<route src='r0' dst='r1'><link_ctn id='core'/></route>\n"
      "</zone></platform>",
      routing + ".xml");
}

TEST_CASE("Floyd and Dijkstra zones route hosts through routers over the declared routes") {
  for (const std::string routing : {"Floyd", "Dijkstra", "DijkstraCache"}) {
    INFO(routing);
    const SimgridPlatform p = star(routing);
    const int h0 = p.host_index("h0"), h1 = p.host_index("h1"), h2 = p.host_index("h2"), lonely = p.host_index("lonely");
    CHECK(names(p, h0, h1) == "l0 l1");
    CHECK(names(p, h0, h2) == "l0 core l2:down");  // r1 to h2 is the reverse of h2's route: l2's DOWN direction
    CHECK(names(p, h2, h0) == "l2 core l0");       // h2's route as declared (UP), then the others reversed
    CHECK(names(p, h0, lonely) == "none");        // no route names it
    CHECK(names(p, h0, h0) == "none");            // the loopback, as SimGrid gives it
  }
}

TEST_CASE("equal routes are chosen as SimGrid's Floyd and Dijkstra choose them") {
  // Two routes of two links from h0 to h1, through ra (declared first) and rb (whose routes come first).
  const std::string text =
      "<host id='h0' speed='1Gf'/><host id='h1' speed='1Gf'/><router id='ra'/><router id='rb'/>\n"
      "<link id='a0' bandwidth='1GBps'/><link id='a1' bandwidth='1GBps'/><link id='b0' bandwidth='1GBps'/>"
      "<link id='b1' bandwidth='1GBps'/>\n"
      "<route src='h0' dst='rb'><link_ctn id='b0'/></route><route src='rb' dst='h1'><link_ctn id='b1'/></route>\n"
      "<route src='h0' dst='ra'><link_ctn id='a0'/></route><route src='ra' dst='h1'><link_ctn id='a1'/></route>\n";
  const auto zone = [&](const std::string& routing) {
    return parse_simgrid_platform("<platform version='4.1'><zone id='z' routing='" + routing + "'>" + text + "</zone></platform>",
                                  "tie.xml");
  };
  // Floyd's loop takes the intermediate points in declaration order: ra, then rb (not better, so kept).
  CHECK(names(zone("Floyd"), 0, 1) == "a0 a1");
  // Dijkstra numbers the points as the routes first name them (h0, rb, h1, ra) and settles rb first.
  CHECK(names(zone("Dijkstra"), 0, 1) == "b0 b1");
}

TEST_CASE("a graph zone's refusals name their place") {
  const auto parse = [](const std::string& zone) {
    return parse_simgrid_platform("<platform version='4.1'>\n" + zone + "\n</platform>", "bad.xml");
  };
  CHECK_THROWS_WITH(parse("<zone id='z' routing='Vivaldi'><host id='h' speed='1Gf'/></zone>"),
                    Catch::StartsWith("bad.xml:2:") && Catch::Contains("Full, Floyd, Dijkstra"));
  CHECK_THROWS_WITH(parse("<zone id='z' routing='Floyd'><cluster id='c' prefix='c' radical='0-1' speed='1Gf' bw='1GBps' "
                          "lat='1us'/></zone>"),
                    Catch::Contains("zone routes"));
  CHECK_THROWS_WITH(parse("<zone id='z' routing='Floyd'><host id='h' speed='1Gf'/><link id='l' bandwidth='1GBps'/>"
                          "<route src='h' dst='nowhere'><link_ctn id='l'/></route></zone>"),
                    Catch::Contains("no host or router 'nowhere'"));
  CHECK_THROWS_WITH(parse("<zone id='z' routing='Dijkstra'><host id='a' speed='1Gf'/><host id='b' speed='1Gf'/>"
                          "<link id='l' bandwidth='1GBps'/><route src='a' dst='b'><link_ctn id='l'/></route>"
                          "<route src='b' dst='a'><link_ctn id='l'/></route></zone>"),
                    Catch::Contains("declared twice") && Catch::Contains("symmetrical"));
  CHECK_THROWS_WITH(parse("<zone id='z' routing='Floyd'><host id='a' speed='1Gf'/><router id='a'/></zone>"),
                    Catch::Contains("'a' is declared twice"));
  // Floyd's table is cubic in the points: past 1,024 the file is refused (Dijkstra takes it).
  std::string many;
  for (int i = 0; i < 1025; ++i) many += "<host id='h" + std::to_string(i) + "' speed='1Gf'/>";
  CHECK_THROWS_WITH(parse("<zone id='z' routing='Floyd'>" + many + "</zone>"),
                    Catch::StartsWith("bad.xml: Floyd routing over 1025 hosts and routers (at most 1024"));
  CHECK_NOTHROW(parse("<zone id='z' routing='Dijkstra'>" + many + "</zone>"));
  // A router in a Full zone is accepted, and a route to it serves no host pair (Full routes join hosts).
  const SimgridPlatform full = parse("<zone id='z' routing='Full'><host id='a' speed='1Gf'/><host id='b' speed='1Gf'/>"
                                     "<router id='r'/><link id='l' bandwidth='1GBps'/>"
                                     "<route src='a' dst='r'><link_ctn id='l'/></route>"
                                     "<route src='a' dst='b'><link_ctn id='l'/></route></zone>");
  CHECK(full.routes.size() == 1);
  CHECK_THROWS_WITH(parse("<zone id='z' routing='Full'><host id='a' speed='1Gf'/><link id='l' bandwidth='1GBps'/>"
                          "<route src='a' dst='r'><link_ctn id='l'/></route></zone>"),
                    Catch::Contains("no host 'r'"));
}

}  // namespace
}  // namespace hpcsim

// MPI point-to-point on a SimGrid platform: latency and bandwidth with SMPI's size factors, sharing of a
// link, the eager/rendezvous switch and buffering, and platform-file errors.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/config_error.h"
#include "models/mpi/mpi_world.h"
#include "models/mpi/simgrid_platform.h"

namespace hpcsim {
namespace {

// Two hosts joined by link L (1e8 B/s, 1 ms).
SimgridPlatform two_hosts(const std::string& sharing = "SHARED") {
  return parse_simgrid_platform(
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
      "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\" core=\"2\"/>\n"
      "<link id=\"L\" bandwidth=\"100MBps\" latency=\"1ms\" sharing_policy=\"" + sharing + "\"/>\n"
      "<route src=\"a\" dst=\"b\"><link_ctn id=\"L\"/></route>\n</zone></platform>\n",
      "two.xml");
}

struct Log final : MpiWorld::Listener {
  std::vector<std::pair<int, double>> done;
  Simulator* sim = nullptr;
  void request_done(int rank, RequestId) override { done.emplace_back(rank, sim->now().to_seconds()); }
  void compute_done(int rank) override { done.emplace_back(rank, sim->now().to_seconds()); }
};

TEST_CASE("SimGrid's size factors: the largest threshold at or below the size") {
  const MessageModel m = smpi_message_model();
  CHECK(m.bandwidth_factor.at(0) == 0.812084);
  CHECK(m.bandwidth_factor.at(65471) == 0.697866);
  CHECK(m.bandwidth_factor.at(65472) == 0.940694);
  CHECK(m.latency_factor.at(1e6) == 11.6436);
  CHECK(SizeFactor().at(123) == 1);
  CHECK_THROWS_AS(SizeFactor::parse("12:x"), std::invalid_argument);
  CHECK_THROWS_AS(SizeFactor::parse("12"), std::invalid_argument);
}

TEST_CASE("a message takes latency x factor + size / (bandwidth x factor / 1.05) under SMPI's model") {
  SimgridMachine m(two_hosts());
  Log log;
  log.sim = &m.sim();
  MpiWorld w(m, smpi_message_model(), {0, 1}, log);
  w.irecv(1, 0, 0, 1e6);
  w.isend(0, 1, 0, 1e6);
  m.sim().run();
  REQUIRE(log.done.size() == 2);
  const double expected = 1e-3 * 11.6436 + 1e6 * 1.05 / (1e8 * 0.940694);
  CHECK(log.done[0].second == Approx(expected).epsilon(1e-9));
  CHECK(log.done[1].second == Approx(expected).epsilon(1e-9));
}

TEST_CASE("two messages in opposite directions share a SHARED link and not a SPLITDUPLEX one") {
  for (const std::string& sharing : {std::string("SHARED"), std::string("SPLITDUPLEX")}) {
    SimgridMachine m(two_hosts(sharing));
    Log log;
    log.sim = &m.sim();
    MpiWorld w(m, mpi_message_model(0), {0, 1}, log);
    w.irecv(1, 0, 0, 1e6);
    w.irecv(0, 1, 0, 1e6);
    w.isend(0, 1, 0, 1e6);
    w.isend(1, 0, 0, 1e6);
    m.sim().run();
    REQUIRE(log.done.size() == 4);
    const double one = 1e-3 + 1e-3 + 1e6 / 1e8;  // latency, rendezvous handshake, data
    const double two = 1e-3 + 1e-3 + 2e6 / 1e8;
    CHECK(log.done.back().second == Approx(sharing == "SHARED" ? two : one).epsilon(1e-9));
  }
}

TEST_CASE("eager sends complete at once and their data waits for no receive, rendezvous waits for both") {
  SimgridMachine m(two_hosts());
  Log log;
  log.sim = &m.sim();
  MpiWorld w(m, mpi_message_model(65536), {0, 1}, log);
  const RequestId small = w.isend(0, 1, 0, 1000);
  CHECK(w.done(small));  // eager: the sender is free
  const RequestId big = w.isend(0, 1, 1, 1e6);
  CHECK_FALSE(w.done(big));
  m.sim().run_until(Time::seconds(1));
  // The eager data has arrived (buffered); posting the receive now completes it at once.
  const RequestId r = w.irecv(1, 0, 0, 1000);
  CHECK(w.done(r));
  CHECK(w.unmatched() == 1);  // the rendezvous send still waits for its receive
  w.irecv(1, 0, 1, 1e6);
  m.sim().run();
  CHECK(w.done(big));
  CHECK(log.done.back().second == Approx(1 + 1e-3 + 1e-3 + 1e6 / 1e8).epsilon(1e-9));
}

TEST_CASE("ranks beyond a host's cores share its CPU") {
  SimgridMachine m(two_hosts());
  Log log;
  log.sim = &m.sim();
  MpiWorld w(m, mpi_message_model(0), {1, 1, 1, 1}, log);  // 4 ranks on b's 2 cores
  for (int r = 0; r < 4; ++r) w.compute(r, 1e9);
  m.sim().run();
  REQUIRE(log.done.size() == 4);
  CHECK(log.done.back().second == Approx(2.0).epsilon(1e-9));
}

std::string platform_error(const std::string& body) {
  try {
    parse_simgrid_platform("<platform version=\"4.1\">\n" + body + "\n</platform>", "p.xml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("platform files: errors name the line and column") {
  CHECK(platform_error("<host id=\"a\" speed=\"fast\"/>") == "p.xml:2:14: expected a speed, got 'fast'");
  CHECK(platform_error("<host id=\"a\" speed=\"1Gf\"/><link id=\"l\" bandwidth=\"1XBps\"/>") ==
        "p.xml:2:40: unknown bandwidth unit 'XBps' (known: Bps, kBps, KBps, MBps, GBps, TBps, PBps, KiBps, MiBps, GiBps, "
        "TiBps, bps, kbps, Kbps, Mbps, Gbps, Tbps, Kibps, Mibps, Gibps)");
  CHECK(platform_error("<host id=\"a\" speed=\"1Gf\"/><route src=\"a\" dst=\"z\"/>") == "p.xml:2:42: no host 'z' is declared");
  CHECK(platform_error("<host id=\"a\" speed=\"1Gf\">") == "p.xml:3:3: </platform> closes <host> opened at line 2");
  CHECK(platform_error("<zone id=\"z\" routing=\"Vivaldi\"></zone>") ==
        "p.xml:2:14: routing 'Vivaldi' is not supported (Full, Floyd, Dijkstra, DijkstraCache)");
  CHECK(platform_error("<host id=\"a\" speed=\"1Gf\"/><host id=\"a\" speed=\"1Gf\"/>") == "p.xml:2:27: host 'a' is declared twice");
}

TEST_CASE("a platform's <config> sets the SMPI options it names") {
  SimgridPlatform p = parse_simgrid_platform(
      "<platform version='4.1'><config><prop id='smpi/bw-factor' value='0:0.5'/>"
      "<prop id='smpi/send-is-detached-thresh' value='100'/></config><host id='a' speed='1f'/></platform>",
      "c.xml");
  MessageModel m = smpi_message_model();
  apply_simgrid_config(p, m);
  CHECK(m.bandwidth_factor.at(1e9) == 0.5);
  CHECK(m.eager_threshold == 100);
}

}  // namespace
}  // namespace hpcsim

// Every collective algorithm runs to completion over MpiWorld for several rank counts (each send meets its
// receive), and its time on an idle uniform platform follows the algorithm's step count.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/mpi/simgrid_platform.h"
#include "simgrid_test_cluster.h"
#include "workloads/mpi_replay/ti_replay.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {
namespace {

MessageModel plain() {
  MessageModel m = mpi_message_model(65536);
  return m;
}

ReplayResult run(const std::string& line, int n, MpiCollective op, CollAlgorithm a) {
  std::string text;
  for (int r = 0; r < n; ++r) text += std::to_string(r) + " " + line + "\n";
  const TiTrace t = parse_ti_trace(text, "t.txt");
  SimgridMachine m(test::simgrid_cluster(n));
  ReplayOptions o;
  o.model = plain();
  o.selector = CollSelector(CollSelector::Rules::ompi);
  o.selector.override_with(op, a);
  for (int r = 0; r < n; ++r) o.rank_host.push_back(r);
  return replay_ti_trace(t, m, o);
}

std::string counts(int n, double v) {
  std::string s;
  for (int i = 0; i < n; ++i) s += " " + std::to_string(v);
  return s;
}

TEST_CASE("every collective algorithm completes for 2 to 9 ranks") {
  for (int n = 2; n <= 9; ++n) {
    for (int ai = 0; ai <= static_cast<int>(CollAlgorithm::nonoverlapping); ++ai) {
      const auto a = static_cast<CollAlgorithm>(ai);
      for (int oi = 0; oi <= static_cast<int>(MpiCollective::scatterv); ++oi) {
        const auto op = static_cast<MpiCollective>(oi);
        if (!implements(a, op)) continue;
        if (a == CollAlgorithm::recursive_doubling && op == MpiCollective::allgather && (n & (n - 1))) continue;
        std::string line = mpi_collective_name(op);
        switch (op) {
          case MpiCollective::barrier: break;
          case MpiCollective::bcast: line += " 300000"; break;
          case MpiCollective::reduce:
          case MpiCollective::allreduce: line += " 300000 0"; break;
          case MpiCollective::alltoall:
          case MpiCollective::allgather: line += " 5000 5000"; break;
          case MpiCollective::gather:
          case MpiCollective::scatter: line += " 5000 5000 0"; break;
          case MpiCollective::alltoallv: line += " 1" + counts(n, 7000) + " 1" + counts(n, 7000); break;
          case MpiCollective::gatherv: line += " 7000" + counts(n, 7000) + " 0"; break;
          case MpiCollective::scatterv: line += counts(n, 7000) + " 7000 0"; break;
          case MpiCollective::allgatherv: line += " 7000" + counts(n, 7000); break;
          case MpiCollective::reducescatter: line += counts(n, 7000) + " 0"; break;
        }
        INFO(line << " on " << n << " ranks with " << coll_algorithm_name(a));
        const ReplayResult r = run(line, n, op, a);
        CHECK(r.time_s > 0);
        CHECK(r.actions == static_cast<std::uint64_t>(n));
      }
    }
  }
}

TEST_CASE("ring allreduce takes 2(n-1) steps of b/n, recursive doubling log2(n) steps of b") {
  const int n = 8;
  const double b = 8e6, bw = 1e9, lat = 2e-6;  // two private links of 1 us per message
  const double ring = run("allreduce 8000000 0", n, MpiCollective::allreduce, CollAlgorithm::ring).time_s;
  CHECK(ring == Approx(2 * (n - 1) * (lat + lat + b / n / bw)).epsilon(1e-6));  // latency + handshake + data
  const double rd = run("allreduce 8000000 0", n, MpiCollective::allreduce, CollAlgorithm::recursive_doubling).time_s;
  CHECK(rd == Approx(3 * (lat + lat + b / bw)).epsilon(1e-6));
}

TEST_CASE("Open MPI's linear_sync gather leaves each rank's rest in flight while it asks the next rank") {
  // 8 ranks, blocks of 200 kB (rendezvous): the basic linear gather takes each block in turn, handshake and all;
  // linear_sync's rests overlap the next ranks' go-aheads. Had the root waited for each rest before asking the
  // next rank (no deferred receive), it would be slower than the basic linear gather, not faster.
  const int n = 8;
  const double b = 200000, bw = 1e9, lat = 2e-6;
  const double basic = run("gather 200000 200000 0", n, MpiCollective::gather, CollAlgorithm::basic_linear).time_s;
  CHECK(basic == Approx((n - 1) * (lat + lat + b / bw)).epsilon(1e-6));
  const double sync = run("gather 200000 200000 0", n, MpiCollective::gather, CollAlgorithm::linear_sync).time_s;
  CHECK(sync < basic - 3 * lat);
  CHECK(sync > (n - 1) * b / bw);  // every block still crosses the root's link
}

TEST_CASE("a trace replays alike on a Floyd or Dijkstra zone and on the Full zone that spells out its routes") {
  const std::string hosts =
      "<host id='h0' speed='1Gf'/><host id='h1' speed='1Gf'/><host id='h2' speed='1Gf'/><host id='h3' speed='1Gf'/>"
      "<link id='l0' bandwidth='1GBps' latency='1us'/><link id='l1' bandwidth='1GBps' latency='1us'/>"
      "<link id='l2' bandwidth='1GBps' latency='1us'/><link id='l3' bandwidth='1GBps' latency='1us'/>"
      "<link id='core' bandwidth='2GBps' latency='5us'/>";
  const std::string graph = "<router id='r0'/><router id='r1'/>"
                            "<route src='h0' dst='r0'><link_ctn id='l0'/></route><route src='h1' dst='r0'><link_ctn id='l1'/></route>"
                            "<route src='h2' dst='r1'><link_ctn id='l2'/></route><route src='h3' dst='r1'><link_ctn id='l3'/></route>"
                            "<route src='r0' dst='r1'><link_ctn id='core'/></route>";
  std::string full;
  const char* up[] = {"l0", "l1", "l2", "l3"};
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b)
      full += "<route src='h" + std::to_string(a) + "' dst='h" + std::to_string(b) + "'><link_ctn id='" + up[a] + "'/>" +
              (a / 2 != b / 2 ? "<link_ctn id='core'/>" : "") + "<link_ctn id='" + up[b] + "'/></route>";
  std::string text;
  for (int r = 0; r < 4; ++r)
    text += std::to_string(r) + " compute 1e6\n" + std::to_string(r) + " allreduce 100000 1e5\n" + std::to_string(r) +
            " alltoall 50000 50000\n" + std::to_string(r) + " bcast 300000\n";
  const TiTrace t = parse_ti_trace(text, "t.txt");
  const auto time_on = [&](const std::string& routing, const std::string& routes) {
    SimgridMachine m(parse_simgrid_platform(
        "<platform version='4.1'><zone id='z' routing='" + routing + "'>" + hosts + routes + "</zone></platform>", "p.xml"));
    ReplayOptions o;
    o.model = plain();
    for (int r = 0; r < 4; ++r) o.rank_host.push_back(r);
    return replay_ti_trace(t, m, o).time_s;
  };
  const double full_s = time_on("Full", full);
  CHECK(full_s > 0);
  CHECK(time_on("Floyd", graph) == full_s);
  CHECK(time_on("Dijkstra", graph) == full_s);
}

TEST_CASE("a binomial bcast of an eager message takes ceil(log2 n) latencies") {
  const double t = run("bcast 0", 8, MpiCollective::bcast, CollAlgorithm::binomial).time_s;
  CHECK(t == Approx(3 * 2e-6).epsilon(1e-9));
}

TEST_CASE("the selector follows Open MPI's fixed rules and SimGrid's defaults") {
  CollSelector ompi(CollSelector::Rules::ompi), smpi(CollSelector::Rules::smpi);
  CollectiveCall c;
  c.op = MpiCollective::allreduce;
  c.bytes = 8000;
  c.elements = 1000;
  CHECK(ompi.select(c, 16) == CollAlgorithm::recursive_doubling);
  c.bytes = 8e6;
  c.elements = 1e6;
  CHECK(ompi.select(c, 16) == CollAlgorithm::ring);
  CHECK(smpi.select(c, 16) == CollAlgorithm::reduce_bcast);
  c.op = MpiCollective::alltoall;
  c.bytes = 100;
  CHECK(ompi.select(c, 32) == CollAlgorithm::bruck);
  CHECK(ompi.select(c, 8) == CollAlgorithm::linear);
  c.bytes = 1e5;
  CHECK(ompi.select(c, 8) == CollAlgorithm::pairwise);
  c.op = MpiCollective::barrier;
  CHECK(ompi.select(c, 8) == CollAlgorithm::recursive_doubling);
  CHECK(ompi.select(c, 6) == CollAlgorithm::dissemination);
  CHECK(smpi.select(c, 6) == CollAlgorithm::linear);
  c.op = MpiCollective::bcast;
  c.bytes = 1e7;
  c.elements = 1e7;
  CHECK(ompi.select(c, 8) == CollAlgorithm::pipeline);
  CHECK(smpi.select(c, 8) == CollAlgorithm::binomial);
  ompi.override_with(MpiCollective::bcast, CollAlgorithm::linear);
  CHECK(ompi.select(c, 8) == CollAlgorithm::linear);
}

}  // namespace
}  // namespace hpcsim

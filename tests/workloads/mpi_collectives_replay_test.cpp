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

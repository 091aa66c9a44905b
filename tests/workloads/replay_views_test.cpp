// What a replay shows beside its times: the kept ranks' timeline segments (they tile each rank's time) and the
// critical path (a chain of computations and messages whose parts add up to the simulated time).
#include <catch2/catch.hpp>

#include <string>

#include "models/mpi/simgrid_platform.h"
#include "simgrid_test_cluster.h"
#include "workloads/mpi_replay/ti_replay.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {
namespace {

ReplayResult replay(const std::string& text, int n, std::vector<int> timeline, bool critical_path,
                    std::size_t limit = 1'000'000) {
  const TiTrace t = parse_ti_trace(text, "t.txt");
  SimgridMachine m(test::simgrid_cluster(n));
  ReplayOptions o;
  o.model = mpi_message_model(65536);
  o.selector = CollSelector(CollSelector::Rules::ompi);
  for (int r = 0; r < n; ++r) o.rank_host.push_back(r);
  o.timeline_ranks = std::move(timeline);
  o.timeline_limit = limit;
  o.critical_path = critical_path;
  return replay_ti_trace(t, m, o);
}

// Rank 0 computes 1 s and sends 1 MB to rank 1, which computes 2 s and sends 1 MB to rank 2, which computes
// 0.5 s; rank 2 also computes 4 s at the start, long before its message is due, so it waits less.
const char* kChain =
    "0 compute 1e9\n0 send 1 0 1e6\n"
    "1 recv 0 0 1e6\n1 compute 2e9\n1 send 2 0 1e6\n"
    "2 compute 0.25e9\n2 recv 1 0 1e6\n2 compute 0.5e9\n";

}  // namespace

TEST_CASE("the critical path follows the messages a rank waited for and adds up to the time", "[replay][critical]") {
  const ReplayResult r = replay(kChain, 3, {}, true);
  REQUIRE(r.critical_path);
  const ReplayCriticalPath& cp = *r.critical_path;
  CHECK(cp.end_rank == 2);
  CHECK(cp.hops == 2);  // 0 -> 1 -> 2
  // Compute on the path: rank 0's 1 s, rank 1's 2 s and rank 2's last 0.5 s, not its first 0.25 s.
  CHECK(cp.compute_s == Approx(3.5).epsilon(1e-9));
  // Two 1 MB messages at 1 GB/s, each at least its transfer time.
  CHECK(cp.communication_s >= 2 * 1e-3);
  CHECK(cp.compute_s + cp.communication_s + cp.other_s == Approx(r.time_s).epsilon(1e-12));
  CHECK(cp.other_s < 1e-4);  // latencies of microseconds
  CHECK(r.time_s == Approx(3.5 + 2e-3).epsilon(1e-3));
}

TEST_CASE("the critical path's time on each rank: the chain 0 -> 1 -> 2, walked back from its end", "[replay][critical]") {
  const ReplayResult r = replay(kChain, 3, {}, true);
  REQUIRE(r.critical_path);
  const std::vector<CriticalPathRank>& on = r.critical_path->by_rank;
  REQUIRE(on.size() == 3);
  // Longest first: rank 1 (2 s of compute and its send), rank 0 (1 s and its send), rank 2 (0.5 s after its
  // message arrives; its first 0.25 s are off the path).
  CHECK(on[0].rank == 1);
  CHECK(on[1].rank == 0);
  CHECK(on[2].rank == 2);
  CHECK(on[0].s == Approx(2.0).epsilon(2e-3));
  CHECK(on[1].s == Approx(1.0).epsilon(2e-3));
  CHECK(on[2].s == Approx(0.5).epsilon(5e-3));
  // With the gaps between a post and its data's start (microseconds of latency), they are the simulated time.
  double sum = 0;
  for (const CriticalPathRank& c : on) sum += c.s;
  CHECK(sum <= r.time_s + 1e-12);
  CHECK(sum == Approx(r.time_s).epsilon(1e-4));
}

TEST_CASE("a rank that never waits is its own critical path", "[replay][critical]") {
  const ReplayResult r = replay("0 compute 3e9\n1 compute 1e9\n1 send 0 0 100\n0 recv 1 0 100\n", 2, {}, true);
  REQUIRE(r.critical_path);
  CHECK(r.critical_path->end_rank == 0);
  CHECK(r.critical_path->hops == 0);  // the message had arrived long before rank 0 asked for it
  CHECK(r.critical_path->compute_s == Approx(3.0).epsilon(1e-9));
  REQUIRE(r.critical_path->by_rank.size() == 1);
  CHECK(r.critical_path->by_rank[0].rank == 0);
  CHECK(r.critical_path->by_rank[0].s == r.time_s);
}

TEST_CASE("without the option no critical path is followed", "[replay][critical]") {
  CHECK_FALSE(replay(kChain, 3, {}, false).critical_path);
}

TEST_CASE("a kept rank's timeline segments tile its time and match its totals", "[replay][timeline]") {
  const ReplayResult r = replay(kChain, 3, {0, 2}, false);
  for (int rank : {0, 2}) {
    double compute = 0, communication = 0, waiting = 0, cursor = 0;
    for (const RankSegment& s : r.timeline) {
      if (s.rank != rank) continue;
      CHECK(s.start_s == Approx(cursor).margin(1e-12));  // no gap and no overlap
      CHECK(s.end_s > s.start_s);
      cursor = s.end_s;
      (s.activity == RankActivity::compute ? compute : s.activity == RankActivity::waiting ? waiting : communication) +=
          s.end_s - s.start_s;
    }
    const RankTimes& t = r.ranks[rank];
    CHECK(cursor == Approx(t.end_s).epsilon(1e-12));
    CHECK(compute == Approx(t.compute_s).epsilon(1e-12));
    CHECK(communication == Approx(t.communication_s).epsilon(1e-12));
    CHECK(waiting == Approx(t.waiting_s).epsilon(1e-12));
  }
  for (const RankSegment& s : r.timeline) CHECK(s.rank != 1);  // not kept
  // Rank 2: compute, wait for rank 1's message, receive it, compute (adjacent same-activity stretches merged).
  std::vector<RankActivity> two;
  for (const RankSegment& s : r.timeline)
    if (s.rank == 2) two.push_back(s.activity);
  CHECK(two == std::vector<RankActivity>{RankActivity::compute, RankActivity::waiting, RankActivity::communication,
                                         RankActivity::compute});
}

TEST_CASE("the timeline keeps at most its limit and counts the rest", "[replay][timeline]") {
  const ReplayResult all = replay(kChain, 3, {0, 1, 2}, false);
  REQUIRE(all.timeline.size() > 3);
  const ReplayResult capped = replay(kChain, 3, {0, 1, 2}, false, 3);
  CHECK(capped.timeline.size() == 3);
  CHECK(capped.timeline_dropped > 0);
  CHECK(capped.time_s == all.time_s);  // recording changes nothing else
}

TEST_CASE("a timeline rank outside the trace is refused", "[replay][timeline]") {
  CHECK_THROWS_AS(replay(kChain, 3, {3}, false), std::invalid_argument);
}

}  // namespace hpcsim

// Schedules move the data their collective must move: checked by summing every rank's sends and
// receives over all steps, independent of any fabric.
#include <catch2/catch.hpp>

#include <vector>

#include "models/collectives/collective_algorithms.h"
#include "models/network/cluster_fabric.h"
#include "collective_test_support.h"

using namespace hpcsim;

namespace {

NodeSpec plain_node(int gpus, int nics) { return test::node_of(gpus, 100e9, 1e-6, nics, 100e9); }

NetworkSpec plain_network() { return test::net_of(12.5e9, 1e-6); }

struct Totals {
  std::vector<double> sent, received;
  std::vector<std::vector<double>> pair;  // [src][dst]
};

Totals totals(const CollectiveSchedule& s, int n) {
  Totals t{std::vector<double>(n), std::vector<double>(n), std::vector<std::vector<double>>(n, std::vector<double>(n))};
  std::vector<Transfer> tr;
  for (int step = 0; step < s.steps(); ++step) {
    s.transfers(s.pattern(step), tr);
    for (const Transfer& x : tr) {
      t.sent[x.src] += x.bytes;
      t.received[x.dst] += x.bytes;
      t.pair[x.src][x.dst] += x.bytes;
    }
  }
  return t;
}

}  // namespace

TEST_CASE("busbw factors are nccl-tests'", "[collectives]") {
  CHECK(busbw_factor(CollectiveOp::allreduce, 8) == Approx(2.0 * 7 / 8));
  CHECK(busbw_factor(CollectiveOp::reducescatter, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(CollectiveOp::allgather, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(CollectiveOp::alltoall, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(CollectiveOp::broadcast, 8) == 1);
  CHECK(busbw_factor(CollectiveOp::reduce, 8) == 1);
  CHECK(busbw_factor(CollectiveOp::sendrecv, 8) == 1);
  for (const auto name : op_names()) CHECK(op_name(*parse_op(name)) == name);
  for (const auto name : algorithm_names()) CHECK(algorithm_name(*parse_algorithm(name)) == name);
  CHECK_FALSE(parse_op("all-reduce"));
  CHECK_FALSE(parse_algorithm("rings"));
}

TEST_CASE("Every schedule moves the bytes its collective needs", "[collectives]") {
  Simulator sim;
  FairShare fs(sim);
  const double S = 96.0 * 1024 * 1024;
  for (const int nodes : {1, 3}) {
    const ClusterFabric fabric(fs, plain_node(4, 2), nodes, 4, nodes > 1 ? std::optional(plain_network()) : std::nullopt);
    const CollectiveGroup group = CollectiveGroup::whole(fabric);
    const int n = group.size();
    ScheduleOptions opt;
    opt.chunk_bytes = 1 << 20;
    opt.root = 1;
    INFO("nodes " << nodes);

    for (const auto algo : {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct}) {
      const Totals t = totals(build_schedule(CollectiveOp::allreduce, algo, group, S), n);
      for (int r = 0; r < n; ++r) {
        CHECK(t.sent[r] == Approx(2.0 * (n - 1) / n * S));  // reduce-scatter + all-gather
        CHECK(t.received[r] == Approx(2.0 * (n - 1) / n * S));
      }
    }
    for (const auto op : {CollectiveOp::broadcast, CollectiveOp::reduce}) {
      for (const auto algo : algorithms_for(op)) {
        INFO(algorithm_name(algo));
        const Totals t = totals(build_schedule(op, algo, group, S, opt), n);
        for (int r = 0; r < n; ++r) {
          if (r == opt.root) continue;
          // Every other rank receives the whole buffer (broadcast) or contributes it (reduce) exactly once.
          CHECK((op == CollectiveOp::broadcast ? t.received[r] : t.sent[r]) == Approx(S));
        }
      }
    }
    for (const auto algo : algorithms_for(CollectiveOp::alltoall)) {
      const Totals t = totals(build_schedule(CollectiveOp::alltoall, algo, group, S), n);
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) CHECK(t.pair[a][b] == Approx(a == b ? 0.0 : S / n));
      }
    }
    const Totals tree = totals(build_schedule(CollectiveOp::allreduce, CollectiveAlgorithm::tree, group, S, opt), n);
    for (int r = 1; r < n; ++r) CHECK(tree.received[r] >= S);  // each non-root gets the full result
  }
}

TEST_CASE("A ring over GPUs spread unevenly on the nodes visits every rank once", "[collectives]") {
  // A data-parallel group of a layout whose groups straddle nodes unevenly (tp 2 x dp 3 on 8-GPU nodes, stage
  // 1: GPUs 6, 8, 10): its first node holds fewer of its GPUs than the next. The ring once left the ranks
  // past the first node's count out (a route from a GPU to itself, or a read past the ring's end).
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, plain_node(8, 2), 2, 8, std::optional(plain_network()));
  const double S = 96.0 * 1024 * 1024;
  for (const std::vector<int>& gpus : {std::vector<int>{6, 8, 10}, std::vector<int>{7, 8, 9, 10, 11}, std::vector<int>{0, 2, 4, 6, 8}}) {
    const CollectiveGroup group = CollectiveGroup::of(fabric, gpus);
    const int n = group.size();
    INFO("group of " << n << " GPUs from " << gpus.front());
    for (int c = 0; c < group.rails(); ++c) {
      std::vector<int> seen(static_cast<std::size_t>(n), 0);
      for (int node = 0; node < group.nodes(); ++node) {
        for (const int local : group.ring_locals(c)) {
          if (local < static_cast<int>(group.members(node).size())) ++seen[group.members(node)[local]];
        }
      }
      for (int r = 0; r < n; ++r) CHECK(seen[r] == 1);
    }
    const Totals t = totals(build_schedule(CollectiveOp::allreduce, CollectiveAlgorithm::ring, group, S), n);
    for (int r = 0; r < n; ++r) {
      CHECK(t.sent[r] == Approx(2.0 * (n - 1) / n * S));
      CHECK(t.received[r] == Approx(2.0 * (n - 1) / n * S));
      CHECK(t.pair[r][r] == 0);
    }
  }
}

TEST_CASE("Halving-doubling moves 2(p-1)/p of the buffer per rank and folds extra ranks", "[collectives]") {
  Simulator sim;
  FairShare fs(sim);
  const double S = 1 << 24;
  const ClusterFabric pow2(fs, plain_node(8, 0), 1, 8, std::nullopt);
  const Totals t = totals(build_schedule(CollectiveOp::allreduce, CollectiveAlgorithm::halving_doubling,
                                         CollectiveGroup::whole(pow2), S), 8);
  for (int r = 0; r < 8; ++r) CHECK(t.sent[r] == Approx(2.0 * 7 / 8 * S));

  const ClusterFabric six(fs, plain_node(6, 0), 1, 6, std::nullopt);
  const CollectiveSchedule s = build_schedule(CollectiveOp::allreduce, CollectiveAlgorithm::halving_doubling,
                                              CollectiveGroup::whole(six), S);
  CHECK(s.steps() == 2 + 2 * 2);  // fold in, 2 halvings, 2 doublings, fold out
  const Totals u = totals(s, 6);
  CHECK(u.sent[4] == Approx(S));      // extra ranks send their buffer once
  CHECK(u.received[4] == Approx(S));  // and get the result once
}

TEST_CASE("Ring steps repeat one pattern: pipelines repeat their steady state", "[collectives]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, plain_node(8, 0), 1, 8, std::nullopt);
  const CollectiveGroup group = CollectiveGroup::whole(fabric);
  const CollectiveSchedule ring = build_schedule(CollectiveOp::allreduce, CollectiveAlgorithm::ring, group, 1e9);
  CHECK(ring.steps() == 14);
  CHECK(ring.patterns() == 1);
  ScheduleOptions opt;
  opt.chunk_bytes = 1e6;
  const CollectiveSchedule chain = build_schedule(CollectiveOp::broadcast, CollectiveAlgorithm::pipeline, group, 1e8, opt);
  CHECK(chain.steps() == 7 + 100 - 1);  // 7 hops, 100 chunks
  CHECK(chain.patterns() == 2 * 6 + 1);  // fill and drain stages differ; the steady state is one pattern
}

TEST_CASE("Unsupported algorithm requests say why", "[collectives][errors]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, plain_node(6, 0), 1, 6, std::nullopt);
  const CollectiveGroup group = CollectiveGroup::whole(fabric);
  CHECK_THAT(unsupported_reason(CollectiveOp::allreduce, CollectiveAlgorithm::hierarchical, group),
             Catch::Contains("two or more nodes"));
  CHECK_THAT(unsupported_reason(CollectiveOp::allgather, CollectiveAlgorithm::halving_doubling, group),
             Catch::Contains("power-of-two"));
  CHECK_THAT(unsupported_reason(CollectiveOp::sendrecv, CollectiveAlgorithm::ring, group),
             Catch::Contains("sendrecv has: direct"));
  CHECK(unsupported_reason(CollectiveOp::allreduce, CollectiveAlgorithm::tree, group).empty());
  CHECK_THROWS_AS(build_schedule(CollectiveOp::broadcast, CollectiveAlgorithm::tree, group, 1, ScheduleOptions{7}),
                  std::invalid_argument);
  CHECK_THROWS_AS(build_schedule(CollectiveOp::allreduce, CollectiveAlgorithm::ring, group, -1), std::invalid_argument);
}

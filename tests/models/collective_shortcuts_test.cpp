// The exact shortcuts of a training step's collectives, each against the full simulation it stands for:
// independent flows simulated by one representative per class, lockstep durations replayed by an identical
// later call (LockstepMemo), routes a later size reads from the claim of an earlier one (LockstepMemo::Routes),
// picks made from estimates in the order of their lower bounds, and estimates read from patterns a pick for
// another size routed (EstimateMemo).
// Equal means equal here: step times to the picosecond, estimates to the last bit.
#include <catch2/catch.hpp>

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "models/collectives/algorithm_choices.h"
#include "models/collectives/algorithm_selector.h"
#include "models/collectives/collective_runner.h"
#include "collective_test_support.h"

using namespace hpcsim;

namespace {

NodeSpec test_node(int nics) { return test::node_of(8, 240e9, 1e-6, nics, 200e9); }

NetworkSpec test_net() { return test::net_of(24e9, 3e-6); }

struct Case {
  const char* name;
  int nodes;
  int nics;
  TopologySpec topology;
};

std::vector<Case> cases() {
  TopologySpec rails;  // 4 nodes per leaf, 4 leaves per pod: flows at several latencies
  rails.kind = TopologyKind::rail_optimized;
  rails.levels = 3;
  rails.radix = 8;
  TopologySpec wide = rails;  // 8 nodes per leaf: 32 nodes span 4 leaves
  wide.radix = 16;
  TopologySpec thin;  // a 2:1 oversubscribed fat-tree: inter-node flows meet on switch links
  thin.kind = TopologyKind::fat_tree;
  thin.levels = 2;
  thin.radix = 12;
  thin.oversubscription = 2;
  return {{"crossbar, 2 nodes, 8 NICs", 2, 8, {}},
          {"crossbar, 4 nodes, 2 NICs (shared)", 4, 2, {}},
          {"rail-optimized fat-tree, 16 nodes", 16, 8, rails},
          {"rail-optimized fat-tree, 32 nodes", 32, 8, wide},
          {"oversubscribed fat-tree, 8 nodes", 8, 8, thin}};
}

struct Sequence {
  std::vector<Time> took;
  std::vector<CollectiveStats> stats;
};

// `sizes` all-reduced one after another over every GPU (each starting when the previous ends, as a training
// step's buckets do), with the shortcuts (a ledger and a lockstep memo) or in full (no replay at all).
Sequence run_sequence(const Case& c, std::optional<CollectiveAlgorithm> algorithm, const std::vector<double>& sizes,
                      bool shortcuts) {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, test_node(c.nics), c.nodes, 8, test_net(), c.topology);
  const std::vector<CollectiveGroup> groups{CollectiveGroup::whole(fabric)};
  LinkLedger ledger;
  LockstepMemo memo;
  AlgorithmChoices choices;
  Sequence out;
  std::function<void(std::size_t)> start = [&](std::size_t i) {
    if (i == sizes.size()) return;
    CollectiveRequest req;
    req.algorithm = algorithm;
    req.bytes = sizes[i];
    req.replay_repeated_steps = shortcuts;
    if (shortcuts) {
      req.ledger = &ledger;
      req.lockstep = &memo;
      req.choices = &choices;
    }
    start_collectives(sim, fs, fabric, groups, req, true, [&, i](const CollectiveStats& s) {
      out.took.push_back(s.end - s.start);
      out.stats.push_back(s);
      start(i + 1);
    });
  };
  start(0);
  sim.run();
  CHECK(ledger.broken_replays() == 0);
  return out;
}

}  // namespace

TEST_CASE("Independent flows simulated by representatives end when the full simulation's do", "[collectives]") {
  for (const Case& c : cases()) {
    for (const double bytes : {8192.0, 3e6, 64e6 + 12345}) {
      for (const auto algorithm : {CollectiveAlgorithm::halving_doubling, CollectiveAlgorithm::ring,
                                   CollectiveAlgorithm::tree, CollectiveAlgorithm::hierarchical}) {
        INFO(c.name << ", " << bytes << " B, " << algorithm_name(algorithm));
        const Sequence full = run_sequence(c, algorithm, {bytes}, false);
        const Sequence fast = run_sequence(c, algorithm, {bytes}, true);
        REQUIRE(full.took.size() == 1);
        REQUIRE(fast.took.size() == 1);
        CHECK(fast.took[0] == full.took[0]);  // to the picosecond
        CHECK(full.stats[0].flows_simulated == full.stats[0].flows_represented);
      }
    }
  }
  // The shortcut is taken where it should be: halving-doubling's patterns never repeat within a call, so
  // fewer flows simulated than represented comes from representatives alone.
  // On a crossbar with a NIC per GPU every halving-doubling flow has links of its own.
  const Sequence fast = run_sequence(cases()[0], CollectiveAlgorithm::halving_doubling, {64e6}, true);
  REQUIRE(fast.stats.size() == 1);
  CHECK(fast.stats[0].steps_replayed == 0);
  CHECK(fast.stats[0].flows_simulated * 4 <= fast.stats[0].flows_represented);
}

TEST_CASE("An identical later call replays the lockstep durations an earlier one measured", "[collectives]") {
  const std::vector<double> sizes{33e6, 8192, 33e6, 33e6, 8192, 41e6, 33e6};
  for (const Case& c : cases()) {
    for (const std::optional<CollectiveAlgorithm> algorithm :
         {std::optional<CollectiveAlgorithm>{}, std::optional{CollectiveAlgorithm::halving_doubling},
          std::optional{CollectiveAlgorithm::ring}}) {
      INFO(c.name << ", " << (algorithm ? algorithm_name(*algorithm) : "selector's pick"));
      const Sequence full = run_sequence(c, algorithm, sizes, false);
      const Sequence fast = run_sequence(c, algorithm, sizes, true);
      REQUIRE(full.took.size() == sizes.size());
      REQUIRE(fast.took.size() == sizes.size());
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        INFO("call " << i);
        CHECK(fast.took[i] == full.took[i]);
        CHECK(fast.stats[i].end == full.stats[i].end);
      }
    }
  }
  // Where nothing else runs, a repeated call replays every step, its first included.
  const Sequence fast = run_sequence(cases()[3], CollectiveAlgorithm::halving_doubling, {33e6, 33e6}, true);
  REQUIRE(fast.stats.size() == 2);
  CHECK(fast.stats[0].steps_replayed < fast.stats[0].steps);
  CHECK(fast.stats[1].steps_replayed == fast.stats[1].steps);
  CHECK(fast.stats[1].flows_simulated == 0);
  // A second size that moves the same transfers reads what routing the first call's claim gave (latency
  // order, bandwidths, independence) and routes only the flows it launches: still one representative per
  // class, still the full simulation's times.
  const std::vector<double> two_sizes{33e6, 41e6 + 12345};
  const Sequence two = run_sequence(cases()[0], CollectiveAlgorithm::halving_doubling, two_sizes, true);
  const Sequence two_full = run_sequence(cases()[0], CollectiveAlgorithm::halving_doubling, two_sizes, false);
  REQUIRE(two.stats.size() == 2);
  REQUIRE(two_full.stats.size() == 2);
  CHECK(two.stats[1].steps_replayed == 0);
  CHECK(two.stats[1].flows_simulated * 4 <= two.stats[1].flows_represented);
  CHECK(two.took[1] == two_full.took[1]);
}

TEST_CASE("A link list claimed as it is meets other claims as a copied one does", "[collectives]") {
  LinkLedger ledger;
  const auto distinct = std::make_shared<const std::vector<ResourceId>>(std::vector<ResourceId>{4, 1, 7});
  const LinkLedger::Claim a = ledger.claim_distinct(distinct);
  const LinkLedger::Claim b = ledger.claim(std::vector<ResourceId>{2, 3, 2});
  CHECK(ledger.exclusive(a));
  CHECK(ledger.exclusive(b));
  ledger.note_replay(a);
  const LinkLedger::Claim c = ledger.claim(std::vector<ResourceId>{9, 7, 9});  // meets a on link 7
  CHECK_FALSE(ledger.exclusive(a));
  CHECK_FALSE(ledger.exclusive(c));
  CHECK(ledger.exclusive(b));
  CHECK(ledger.broken_replays() == 1);  // a had replayed on the strength of being alone
  ledger.release(a);
  ledger.release(c);
  const LinkLedger::Claim d = ledger.claim_distinct(distinct);  // the same list again: nobody holds it now
  CHECK(ledger.exclusive(d));
  CHECK(distinct->size() == 3);  // kept as it was
  CHECK_THROWS_AS(ledger.release(a), std::logic_error);
}

TEST_CASE("LockstepMemo keeps records apart by size, algorithm and group, on one fabric", "[collectives]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, test_node(8), 4, 8, test_net());
  const ClusterFabric other(fs, test_node(8), 4, 8, test_net());
  const std::vector<CollectiveGroup> whole{CollectiveGroup::whole(fabric)};
  const std::vector<CollectiveGroup> half{CollectiveGroup::of(fabric, {0, 1, 2, 3, 8, 9, 10, 11})};
  LockstepMemo memo;
  const auto op = CollectiveOp::allreduce;
  const auto hd = CollectiveAlgorithm::halving_doubling;
  const auto a = memo.record(fabric, op, hd, 1e6, {}, false, whole, 10);
  CHECK(memo.record(fabric, op, hd, 1e6, {}, false, whole, 10) == a);
  CHECK(memo.record(fabric, op, hd, 2e6, {}, false, whole, 10) != a);
  CHECK(memo.record(fabric, op, CollectiveAlgorithm::ring, 1e6, {}, false, whole, 10) != a);
  CHECK(memo.record(fabric, op, hd, 1e6, {}, false, half, 10) != a);
  CHECK(memo.record(fabric, op, hd, 1e6, {}, true, whole, 10) != a);
  CHECK(a->durations == std::vector<std::int64_t>(10, -1));
  CHECK_THROWS_AS(memo.record(other, op, hd, 1e6, {}, false, whole, 10), std::invalid_argument);
}

TEST_CASE("Estimates through an EstimateMemo equal fresh ones, for every size that reuses a pattern", "[collectives]") {
  for (const Case& c : cases()) {
    Simulator sim;
    FairShare fs(sim);
    const ClusterFabric fabric(fs, test_node(c.nics), c.nodes, 8, test_net(), c.topology);
    const CollectiveGroup group = CollectiveGroup::whole(fabric);
    EstimateMemo memo;
    AlgorithmChoices choices;
    bool picks_differ = false;
    for (const double bytes : {8192.0, 33e6, 33e6 + 4096, 41e6, 200e6, 8192.0}) {
      for (const CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::allgather, CollectiveOp::broadcast}) {
        std::optional<CollectiveAlgorithm> best;  // the first with the lowest estimate
        double best_time = std::numeric_limits<double>::infinity();
        for (const CollectiveAlgorithm a : algorithms_for(op)) {
          if (!selectable(op, a, group)) continue;
          INFO(c.name << ", " << bytes << " B, " << op_name(op) << ", " << algorithm_name(a));
          const CollectiveSchedule s = build_schedule(op, a, group, bytes);
          if (s.distinct_transfers() > kTransferBudget) continue;
          const double fresh = estimate_time(s, fabric, fs, group);
          // select_algorithm estimates in the order of these bounds and skips any above the best so far.
          CHECK(estimate_lower_bound(s, fabric, fs, group) <= fresh);
          if (fresh < best_time) best_time = fresh, best = a;
          CHECK(estimate_time(s, fabric, fs, group, &memo) == fresh);
          CHECK(estimate_time(s, fabric, fs, group, &memo) == fresh);  // read back from the memo
        }
        const CollectiveAlgorithm pick = select_algorithm(op, bytes, fabric, fs, group);
        REQUIRE(best);
        CHECK(pick == *best);
        CHECK(choices.select(op, bytes, fabric, fs, group, {}) == pick);
        picks_differ = picks_differ || pick != select_algorithm(op, 8192.0, fabric, fs, group);
      }
    }
    CHECK(picks_differ);  // sizes that pick differently, so a pick leaking across sizes would show
  }
}

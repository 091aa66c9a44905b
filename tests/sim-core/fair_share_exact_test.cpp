// The solver's speed-ups change no result: random flow sets run on FairShare and on the solver as it was
// before them (baseline/fair_share_baseline.h) give equal rates, remaining amounts and resource accounting
// after every change, and equal completion picoseconds, compared as doubles and integers with ==; with the
// resource statistics turned off (FairShare::keep_resource_stats), the same rates, amounts and picoseconds.
// Equal-share groups (FairShare::group_equal_shares) keep a member's amount another way: the same rates,
// amounts to rounding and completion picoseconds within rounding's picosecond.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

#include "baseline/fair_share_baseline.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

using hpcsim::FlowId;
using hpcsim::ResourceId;
using hpcsim::Simulator;
using hpcsim::Time;

namespace {

constexpr double kGB = 1e9;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Everything a run observed, in order.
struct Observed {
  std::vector<double> values;        // rates and remaining amounts after each change, accounting at the end
  std::vector<std::int64_t> events;  // completion picoseconds and flow ids
  std::map<int, std::int64_t> finished;  // completion picoseconds by the flow's start order
  std::uint64_t solves = 0;
  bool operator==(const Observed&) const = default;
};

enum class Shape {
  kRandomGraph,  // a dozen resources of random capacities (one infinite), 1-3 per path
  kCluster,      // hosts with up and down links on a backbone: SimGrid's <cluster>, every path crosses it
};

// One random run; every draw depends only on the seed and on what the solver reported, so two solvers
// that agree see the same run.
template <class Solver>
Observed run(std::uint64_t seed, Shape shape, bool stats = true, bool group = false, int min_hosts = 4,
             std::size_t group_min_flows = hpcsim::FairShare::kGroupMinFlows) {
  Simulator sim;
  Solver fs(sim);
  if constexpr (requires { fs.keep_resource_stats(false); }) fs.keep_resource_stats(stats);
  if constexpr (requires { fs.group_equal_shares(false); }) fs.group_equal_shares(group, group_min_flows);
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t n) { return rng() % n; };
  std::vector<ResourceId> up, down;
  ResourceId backbone = 0;
  std::size_t resources = 0;
  if (shape == Shape::kRandomGraph) {
    for (int r = 0; r < 12; ++r) fs.add_resource(r == 11 ? kInf : kGB * static_cast<double>(1 + pick(8)));
    resources = 12;
  } else {
    const int hosts = min_hosts + static_cast<int>(pick(29));
    for (int h = 0; h < hosts; ++h) {
      up.push_back(fs.add_resource(12.5 * kGB));
      down.push_back(fs.add_resource(12.5 * kGB));
    }
    // From a backbone that never fills to one that every change re-rates.
    backbone = fs.add_resource(kGB * static_cast<double>(10 + pick(400)));
    resources = up.size() + down.size() + 1;
  }
  std::map<int, FlowId> live;  // by start order, so that a run's draws never depend on the ids handed out
  Observed out;
  int started = 0;
  auto observe = [&] {
    fs.settle();
    for (const auto& [index, id] : live) {
      out.values.push_back(fs.rate(id));
      out.values.push_back(fs.remaining(id));
    }
  };
  auto start_random = [&] {
    std::vector<ResourceId> path;
    if (shape == Shape::kRandomGraph) {
      const int hops = 1 + static_cast<int>(pick(3));
      while (static_cast<int>(path.size()) < hops) {
        const auto r = static_cast<ResourceId>(pick(resources));
        if (std::find(path.begin(), path.end(), r) == path.end()) path.push_back(r);
      }
    } else {
      const std::size_t src = pick(up.size());
      const std::size_t dst = (src + 1 + pick(up.size() - 1)) % up.size();
      path = {up[src], backbone, down[dst]};
    }
    // Caps: none, or SMPI-like ones near the link's bandwidth; weights: none, one for all (SMPI's penalty),
    // or different per resource.
    const double cap = pick(3) == 0 ? kInf : kGB * (0.5 + 0.5 * static_cast<double>(pick(24)));
    const double amount = pick(12) == 0 ? 0.0 : 65536.0 * static_cast<double>(1 + pick(200));
    const int index = started++;
    auto done = [&out, &live, &sim, index](FlowId id) {
      out.finished[index] = static_cast<std::int64_t>(sim.now().picoseconds());
      out.events.push_back(static_cast<std::int64_t>(sim.now().picoseconds()));
      out.events.push_back(static_cast<std::int64_t>(id));
      live.erase(index);
    };
    std::vector<double> weights;
    switch (pick(3)) {
      case 0: break;
      case 1: weights.assign(path.size(), 0.25 + static_cast<double>(pick(1000)) / 997.0); break;
      default:
        for (std::size_t k = 0; k < path.size(); ++k) weights.push_back(1.0 + static_cast<double>(pick(5)));
    }
    const FlowId id = weights.empty() ? fs.start_flow(path, amount, done, cap)
                                      : fs.start_flow_class(path, weights, amount, done, cap);
    live[index] = id;
  };
  std::function<void()> arrive = [&] {
    const int burst = 1 + static_cast<int>(pick(shape == Shape::kCluster ? 12 : 4));
    for (int i = 0; i < burst; ++i) {
      try {
        start_random();
      } catch (const std::invalid_argument&) {
        // a path over the infinite resource only, without a cap: rejected, as designed
      }
    }
    if (!live.empty() && pick(5) == 0) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(pick(live.size())));
      fs.cancel_flow(it->second);
      live.erase(it);
    }
    observe();
    if (sim.now() < Time::us(300)) sim.schedule_in(Time::ns(static_cast<double>(pick(8000))), [&] { arrive(); });
  };
  sim.schedule_at(Time::zero(), [&] { arrive(); });
  sim.run();
  for (ResourceId r = 0; stats && r < resources; ++r) {
    const hpcsim::ResourceStats s = fs.stats(r);
    out.values.push_back(s.carried);
    out.values.push_back(s.utilisation);
    out.events.push_back(static_cast<std::int64_t>(s.busy_time.picoseconds()));
  }
  out.solves = fs.solves();
  return out;
}

}  // namespace

TEST_CASE("FairShare: equal doubles and picoseconds to the solver before its speed-ups, random graphs",
          "[fair_share]") {
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    const Observed now = run<hpcsim::FairShare>(seed, Shape::kRandomGraph);
    const Observed before = run<hpcsim::baseline::FairShareBaseline>(seed, Shape::kRandomGraph);
    INFO("seed " << seed);
    REQUIRE(now.events.size() > 20);
    REQUIRE(now.values.size() == before.values.size());
    for (std::size_t i = 0; i < now.values.size(); ++i) REQUIRE(now.values[i] == before.values[i]);
    REQUIRE(now == before);
  }
}

TEST_CASE("FairShare: equal doubles and picoseconds to the solver before its speed-ups, clusters on a backbone",
          "[fair_share]") {
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    const Observed now = run<hpcsim::FairShare>(seed, Shape::kCluster);
    const Observed before = run<hpcsim::baseline::FairShareBaseline>(seed, Shape::kCluster);
    INFO("seed " << seed);
    REQUIRE(now.events.size() > 20);
    REQUIRE(now.values.size() == before.values.size());
    for (std::size_t i = 0; i < now.values.size(); ++i) REQUIRE(now.values[i] == before.values[i]);
    REQUIRE(now == before);
  }
}

TEST_CASE("FairShare: the same rates and picoseconds with resource statistics off", "[fair_share]") {
  for (const Shape shape : {Shape::kRandomGraph, Shape::kCluster}) {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      const Observed off = run<hpcsim::FairShare>(seed, shape, false);
      const Observed before = run<hpcsim::baseline::FairShareBaseline>(seed, shape, false);
      INFO("seed " << seed);
      REQUIRE(off.events.size() > 20);
      REQUIRE(off == before);
    }
  }
}

TEST_CASE("FairShare: equal-share groups give the per-flow solve's rates, and its completions within a picosecond",
          "[fair_share]") {
  // Clusters of 40-68 hosts whose backbone fills: groups form, take arrivals and departures, and dissolve.
  // Then groups of any size (from 2 flows) on every shape: random graphs with an infinite resource, small
  // and large clusters, so that every way of joining and dissolving is taken many times.
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 240; ++seed) {
    const bool any_size = seed > 60;
    const Shape shape = any_size && seed % 3 == 0 ? Shape::kRandomGraph : Shape::kCluster;
    const int hosts = any_size && seed % 3 == 1 ? 4 : 40;
    const std::size_t min_flows = any_size ? 2 : hpcsim::FairShare::kGroupMinFlows;
    const Observed grouped = run<hpcsim::FairShare>(seed, shape, false, true, hosts, min_flows);
    const Observed alone = run<hpcsim::FairShare>(seed, shape, false, false, hosts);
    INFO("seed " << seed);
    REQUIRE(grouped.events.size() > 20);
    REQUIRE(grouped.events.size() == alone.events.size());
    REQUIRE(grouped.values.size() == alone.values.size());
    // Each flow completes within a picosecond of the per-flow solve's time; flows that complete at one
    // picosecond may do so in another order (a group's by finish work, the per-flow solve's by arrival).
    REQUIRE(grouped.finished.size() == alone.finished.size());
    for (const auto& [index, ps] : alone.finished) {
      INFO("flow " << index);
      REQUIRE(grouped.finished.count(index) == 1);
      REQUIRE(std::llabs(grouped.finished.at(index) - ps) <= 1);
    }
    for (std::size_t i = 0; i < grouped.values.size(); ++i) {
      // Rates and remaining amounts (of up to 13 MB): equal to rounding.
      REQUIRE(std::abs(grouped.values[i] - alone.values[i]) <= 1e-9 * std::abs(alone.values[i]) + 1e-4);
    }
    compared += grouped.solves < alone.solves || grouped.values != alone.values ? 1 : 0;
  }
  CHECK(compared > 120);  // the groups were used: most runs' figures differ in their last bits
}

TEST_CASE("FairShare: equal-share grouping cannot be switched with flows active", "[fair_share]") {
  Simulator sim;
  hpcsim::FairShare fs(sim);
  const ResourceId link = fs.add_resource(kGB);
  CHECK_NOTHROW(fs.group_equal_shares(false));
  fs.start_flow(std::vector<ResourceId>{link}, kGB, [](FlowId) {});
  CHECK_THROWS_AS(fs.group_equal_shares(true), std::logic_error);
}

TEST_CASE("FairShare: statistics that are off cannot be read, nor switched with flows active", "[fair_share]") {
  Simulator sim;
  hpcsim::FairShare fs(sim);
  const ResourceId link = fs.add_resource(kGB);
  CHECK_NOTHROW(fs.stats(link));
  fs.keep_resource_stats(false);
  CHECK_THROWS_AS(fs.stats(link), std::logic_error);
  const ResourceId path[] = {link};
  Time done_at;
  fs.start_flow(path, 2 * kGB, [&](FlowId) { done_at = sim.now(); });
  CHECK_THROWS_AS(fs.keep_resource_stats(true), std::logic_error);
  sim.run();
  CHECK(done_at == Time::seconds(2));
  // Back on once idle: accounting starts from there.
  fs.keep_resource_stats(true);
  fs.start_flow(path, kGB, [](FlowId) {});
  sim.run();
  CHECK(fs.stats(link).carried == Approx(kGB));
  CHECK(fs.stats(link).busy_time == Time::seconds(1));
}

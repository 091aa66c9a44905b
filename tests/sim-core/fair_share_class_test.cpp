// Flow classes (FairShare::start_flow_class): a class of n flows solved as one must give each member the
// rate and completion time the n flows get when started one by one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

using hpcsim::FairShare;
using hpcsim::FlowId;
using hpcsim::ResourceId;
using hpcsim::Simulator;
using hpcsim::Time;

namespace {

constexpr double kGB = 1e9;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct ClassSpec {
  std::vector<ResourceId> path;
  int members = 1;
  double amount = 0;
  double cap = kInf;
  Time start;
};

// Random classes of identical flows on a small random graph, started at random times.
std::vector<ClassSpec> random_classes(std::uint64_t seed, std::vector<double>& capacity) {
  std::mt19937_64 rng(seed);
  capacity.clear();
  for (int r = 0; r < 10; ++r) capacity.push_back(kGB * static_cast<double>(1 + rng() % 8));
  std::vector<ClassSpec> out;
  for (int c = 0; c < 40; ++c) {
    ClassSpec s;
    const int hops = 1 + static_cast<int>(rng() % 3);
    while (static_cast<int>(s.path.size()) < hops) {
      const auto r = static_cast<ResourceId>(rng() % capacity.size());
      if (std::find(s.path.begin(), s.path.end(), r) == s.path.end()) s.path.push_back(r);
    }
    s.members = 1 + static_cast<int>(rng() % 6);
    s.amount = kGB * 0.01 * static_cast<double>(1 + rng() % 100);
    if (rng() % 4 == 0) s.cap = kGB * 0.25 * static_cast<double>(1 + rng() % 4);
    s.start = Time::us(static_cast<double>(rng() % 200000));
    out.push_back(s);
  }
  return out;
}

// Completion time of each class: as one weighted flow (classes) or as its members one by one.
std::vector<std::int64_t> run(const std::vector<double>& capacity, const std::vector<ClassSpec>& classes,
                              bool as_classes, std::uint64_t* refilled = nullptr) {
  Simulator sim;
  FairShare fs(sim);
  for (const double c : capacity) fs.add_resource(c);
  std::vector<std::int64_t> done(classes.size(), -1);
  for (std::size_t i = 0; i < classes.size(); ++i) {
    sim.schedule_at(classes[i].start, [&, i] {
      const ClassSpec& s = classes[i];
      auto record = [&done, &sim, i](FlowId) { done[i] = std::max<std::int64_t>(done[i], static_cast<std::int64_t>(sim.now().picoseconds())); };
      if (as_classes) {
        const std::vector<double> weights(s.path.size(), static_cast<double>(s.members));
        fs.start_flow_class(s.path, weights, s.amount, record, s.cap);
      } else {
        for (int m = 0; m < s.members; ++m) fs.start_flow(s.path, s.amount, record, s.cap);
      }
    });
  }
  sim.run();
  if (refilled) *refilled = fs.refilled_flows();
  return done;
}

}  // namespace

TEST_CASE("FairShare: a class of n identical flows finishes when its n members would", "[fair_share][classes]") {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    std::vector<double> capacity;
    const std::vector<ClassSpec> classes = random_classes(seed, capacity);
    std::uint64_t refilled_classes = 0, refilled_members = 0;
    const auto as_classes = run(capacity, classes, true, &refilled_classes);
    const auto members = run(capacity, classes, false, &refilled_members);
    REQUIRE(as_classes.size() == members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      REQUIRE(members[i] > 0);
      // Sums of n rates and n times a rate round differently: allow a few ulps of the time.
      CHECK(std::abs(static_cast<double>(as_classes[i] - members[i])) <= 1e-9 * static_cast<double>(members[i]) + 2);
    }
    CHECK(refilled_classes < refilled_members);  // the point: fewer flows to re-fill
  }
}

TEST_CASE("FairShare: a weighted representative solves a symmetric pair exactly", "[fair_share][classes]") {
  // Two senders, each on its own 10 GB/s access link, share a 15 GB/s core link. Symmetry gives them
  // equal rates, so one representative over its access link (weight 1: the orbit has two links and two
  // members) and the core (weight 2: both members cross it) stands for both: 7.5 GB/s each.
  Simulator sim;
  FairShare fs(sim);
  const ResourceId a0 = fs.add_resource(10 * kGB), core = fs.add_resource(15 * kGB);
  const std::vector<ResourceId> path{a0, core};
  const std::vector<double> weights{1, 2};
  std::int64_t at = -1;
  const FlowId rep = fs.start_flow_class(path, weights, 15 * kGB, [&](FlowId) { at = sim.now().picoseconds(); });
  fs.settle();
  CHECK(fs.rate(rep) == Approx(7.5 * kGB));
  CHECK(fs.stats(core).utilisation == Approx(1.0));
  sim.run();
  CHECK(at == Time::seconds(2).picoseconds());
}

TEST_CASE("FairShare: a class beside plain flows leaves them their max-min share", "[fair_share][classes]") {
  // A class of 3 and one plain flow on a 4 GB/s link: 1 GB/s each, the link full.
  Simulator sim;
  FairShare fs(sim);
  const ResourceId l = fs.add_resource(4 * kGB);
  const std::vector<ResourceId> path{l};
  const std::vector<double> three{3};
  const FlowId cls = fs.start_flow_class(path, three, kGB, [](FlowId) {});
  const FlowId one = fs.start_flow(path, 2 * kGB, [](FlowId) {});
  fs.settle();
  CHECK(fs.rate(cls) == Approx(kGB));
  CHECK(fs.rate(one) == Approx(kGB));
  sim.run_until(Time::seconds(1.1));  // the class ended at 1 s: the plain flow has the link to itself
  CHECK(fs.rate(one) == Approx(4 * kGB));
}

TEST_CASE("FairShare: flow class weights are checked", "[fair_share][classes][errors]") {
  Simulator sim;
  FairShare fs(sim);
  const ResourceId l = fs.add_resource(kGB);
  const std::vector<ResourceId> path{l};
  const std::vector<double> none, zero{0}, nan{std::nan("")};
  CHECK_THROWS_AS(fs.start_flow_class(path, none, 1, [](FlowId) {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow_class(path, zero, 1, [](FlowId) {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow_class(path, nan, 1, [](FlowId) {}), std::invalid_argument);
}

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
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

// Records when each flow finished, by flow id.
struct Finishes {
  std::map<FlowId, std::int64_t> at_ps;
  Simulator* sim = nullptr;
  FairShare::Callback record() {
    return [this](FlowId id) { at_ps[id] = sim->now().picoseconds(); };
  }
};

std::int64_t seconds_ps(double s) { return Time::seconds(s).picoseconds(); }

// Reference max-min solver, from scratch and deliberately naive: raise all unfrozen flows together
// until a resource fills or a cap is reached.
std::vector<double> reference_rates(const std::vector<double>& capacity,
                                    const std::vector<std::vector<ResourceId>>& paths,
                                    const std::vector<double>& caps) {
  const std::size_t n = paths.size();
  std::vector<double> rate(n, 0.0);
  std::vector<bool> frozen(n, false);
  std::size_t left = n;
  while (left > 0) {
    double level = kInf;
    for (std::size_t f = 0; f < n; ++f) {
      if (!frozen[f]) level = std::min(level, caps[f]);
    }
    for (std::size_t r = 0; r < capacity.size(); ++r) {
      if (capacity[r] == kInf) continue;
      double used = 0;
      int open = 0;
      for (std::size_t f = 0; f < n; ++f) {
        for (ResourceId p : paths[f]) {
          if (p != r) continue;
          if (frozen[f]) {
            used += rate[f];
          } else {
            ++open;
          }
        }
      }
      if (open > 0) level = std::min(level, (capacity[r] - used) / open);
    }
    // Freeze every flow that sits on a full resource or at its cap at this level.
    std::vector<std::size_t> to_freeze;
    for (std::size_t f = 0; f < n; ++f) {
      if (frozen[f]) continue;
      bool stop = caps[f] <= level * (1 + 1e-12);
      for (ResourceId p : paths[f]) {
        if (capacity[p] == kInf) continue;
        double used = 0;
        int open = 0;
        for (std::size_t g = 0; g < n; ++g) {
          for (ResourceId q : paths[g]) {
            if (q != p) continue;
            if (frozen[g]) {
              used += rate[g];
            } else {
              ++open;
            }
          }
        }
        if ((capacity[p] - used) / open <= level * (1 + 1e-12)) stop = true;
      }
      if (stop) to_freeze.push_back(f);
    }
    for (std::size_t f : to_freeze) {
      frozen[f] = true;
      rate[f] = level;
      --left;
    }
  }
  return rate;
}

}  // namespace

TEST_CASE("FairShare: flows on one bottleneck share it equally and finish exactly", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId link = fs.add_resource(3 * kGB, "link");
  std::vector<FlowId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(fs.start_flow(std::vector<ResourceId>{link}, kGB, done.record()));
  fs.settle();
  for (FlowId id : ids) CHECK(fs.rate(id) == Approx(kGB));
  sim.run();
  for (FlowId id : ids) CHECK(done.at_ps.at(id) == seconds_ps(1));
  CHECK(fs.active_flows() == 0);
}

TEST_CASE("FairShare: unequal flows on one link hand their share to the rest", "[fair_share]") {
  // 3 GB/s shared by 1, 2.5 and 5.5 GB: rate 1 until 1 s, then 1.5 each until 2 s, then 3 until 3 s.
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId link = fs.add_resource(3 * kGB);
  const std::vector<ResourceId> path{link};
  const FlowId a = fs.start_flow(path, 1 * kGB, done.record());
  const FlowId b = fs.start_flow(path, 2.5 * kGB, done.record());
  const FlowId c = fs.start_flow(path, 5.5 * kGB, done.record());
  sim.run_until(Time::seconds(1.5));
  CHECK(fs.rate(b) == Approx(1.5 * kGB));
  CHECK(fs.remaining(c) == Approx(3.75 * kGB));
  sim.run();
  CHECK(done.at_ps.at(a) == seconds_ps(1));
  CHECK(done.at_ps.at(b) == seconds_ps(2));
  CHECK(done.at_ps.at(c) == seconds_ps(3));
}

TEST_CASE("FairShare: parking lot with two bottlenecks", "[fair_share]") {
  // L1 = 10 GB/s carries A and B, L2 = 4 GB/s carries A and C. L2 fills first at 2 each (A, C);
  // B takes the rest of L1: 8. When C (2 GB) ends at 1 s: A = min(4, 10/2) = 4, B = 6. A (4 GB) ends at
  // 1.5 s; B (16 GB) has 16 - 8 - 3 = 5 left and ends at 1.5 + 5/10 = 2 s.
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId l1 = fs.add_resource(10 * kGB, "L1");
  const ResourceId l2 = fs.add_resource(4 * kGB, "L2");
  const FlowId a = fs.start_flow(std::vector<ResourceId>{l1, l2}, 4 * kGB, done.record());
  const FlowId b = fs.start_flow(std::vector<ResourceId>{l1}, 16 * kGB, done.record());
  const FlowId c = fs.start_flow(std::vector<ResourceId>{l2}, 2 * kGB, done.record());
  fs.settle();
  CHECK(fs.rate(a) == Approx(2 * kGB));
  CHECK(fs.rate(b) == Approx(8 * kGB));
  CHECK(fs.rate(c) == Approx(2 * kGB));
  sim.run_until(Time::seconds(1.25));
  CHECK(fs.rate(a) == Approx(4 * kGB));
  CHECK(fs.rate(b) == Approx(6 * kGB));
  sim.run();
  CHECK(done.at_ps.at(c) == seconds_ps(1));
  CHECK(done.at_ps.at(a) == seconds_ps(1.5));
  CHECK(done.at_ps.at(b) == seconds_ps(2));
  CHECK(fs.stats(l1).carried == Approx(20 * kGB));
  CHECK(fs.stats(l2).carried == Approx(6 * kGB));
}

TEST_CASE("FairShare: a capped flow leaves its unused share to the others", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  const ResourceId link = fs.add_resource(10 * kGB);
  const std::vector<ResourceId> path{link};
  const FlowId capped = fs.start_flow(path, kGB, {}, 1 * kGB);
  const FlowId x = fs.start_flow(path, kGB, {});
  const FlowId y = fs.start_flow(path, kGB, {});
  // A cap above the fair share does not bind.
  const FlowId loose = fs.start_flow(path, kGB, {}, 100 * kGB);
  fs.settle();
  CHECK(fs.rate(capped) == Approx(1 * kGB));
  CHECK(fs.rate(x) == Approx(3 * kGB));
  CHECK(fs.rate(y) == Approx(3 * kGB));
  CHECK(fs.rate(loose) == Approx(3 * kGB));
}

TEST_CASE("FairShare: a cap alone limits a flow over infinite resources", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId wire = fs.add_resource(kInf, "ideal");
  const FlowId f = fs.start_flow(std::vector<ResourceId>{wire}, 2 * kGB, done.record(), kGB);
  const FlowId g = fs.start_flow(std::span<const ResourceId>{}, 3 * kGB, done.record(), kGB);
  sim.run();
  CHECK(done.at_ps.at(f) == seconds_ps(2));
  CHECK(done.at_ps.at(g) == seconds_ps(3));
  CHECK(fs.stats(wire).carried == Approx(2 * kGB));
  CHECK(fs.stats(wire).utilisation == 0.0);
}

TEST_CASE("FairShare: a flow arriving mid-transfer slows the first one", "[fair_share]") {
  // 2 GB/s link. P (4 GB) alone at 2 until 1 s (2 GB left); Q (1 GB) arrives: 1 each, Q ends at 2 s,
  // P has 1 GB left and ends at 2.5 s.
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId link = fs.add_resource(2 * kGB);
  const FlowId p = fs.start_flow(std::vector<ResourceId>{link}, 4 * kGB, done.record());
  FlowId q = 0;
  sim.schedule_at(Time::seconds(1), [&] {
    q = fs.start_flow(std::vector<ResourceId>{link}, 1 * kGB, done.record());
  });
  sim.run_until(Time::seconds(1.5));
  CHECK(fs.rate(p) == Approx(kGB));
  CHECK(fs.rate(q) == Approx(kGB));
  CHECK(fs.start_time(q) == Time::seconds(1));
  CHECK(fs.remaining(p) == Approx(1.5 * kGB));
  sim.run();
  CHECK(done.at_ps.at(q) == seconds_ps(2));
  CHECK(done.at_ps.at(p) == seconds_ps(2.5));
  const auto stats = fs.stats(link);
  CHECK(stats.carried == Approx(5 * kGB));
  CHECK(stats.busy_time == Time::seconds(2.5));
}

TEST_CASE("FairShare: zero-byte flows complete at once, through an event", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId link = fs.add_resource(kGB);
  const FlowId big = fs.start_flow(std::vector<ResourceId>{link}, kGB, done.record());
  sim.run_until(Time::seconds(0.25));
  const FlowId empty = fs.start_flow(std::vector<ResourceId>{link}, 0.0, done.record());
  CHECK(done.at_ps.count(empty) == 0);  // never from inside start_flow
  CHECK(fs.active(empty));
  sim.run_until(Time::seconds(0.25));
  CHECK(done.at_ps.at(empty) == seconds_ps(0.25));
  CHECK_FALSE(fs.active(empty));
  CHECK(fs.rate(big) == Approx(kGB));  // it never shared the link
  sim.run();
  CHECK(done.at_ps.at(big) == seconds_ps(1));
}

TEST_CASE("FairShare: independent components do not disturb each other", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId left = fs.add_resource(kGB);
  const ResourceId right = fs.add_resource(kGB);
  const FlowId steady = fs.start_flow(std::vector<ResourceId>{left}, kGB, done.record());
  fs.settle();
  const auto refilled_before = fs.refilled_flows();
  // Churn on the other link: arrivals, a cancellation, completions.
  for (int i = 0; i < 4; ++i) fs.start_flow(std::vector<ResourceId>{right}, 0.1 * kGB * (i + 1), done.record());
  const FlowId doomed = fs.start_flow(std::vector<ResourceId>{right}, kGB, done.record());
  fs.settle();
  CHECK(fs.refilled_flows() - refilled_before == 5);  // only the right-hand flows were re-solved
  sim.run_until(Time::seconds(0.5));
  CHECK(fs.cancel_flow(doomed));
  CHECK(fs.rate(steady) == Approx(kGB));
  sim.run();
  CHECK(done.at_ps.at(steady) == seconds_ps(1));
}

TEST_CASE("FairShare: cancelling a flow frees its share and skips its callback", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId link = fs.add_resource(2 * kGB);
  const std::vector<ResourceId> path{link};
  const FlowId keep = fs.start_flow(path, 3 * kGB, done.record());
  const FlowId drop = fs.start_flow(path, 3 * kGB, done.record());
  sim.run_until(Time::seconds(1));  // 2 GB left on keep
  CHECK(fs.cancel_flow(drop));
  CHECK_FALSE(fs.cancel_flow(drop));
  CHECK_FALSE(fs.active(drop));
  CHECK_THROWS_AS(fs.rate(drop), std::invalid_argument);
  CHECK_THROWS_AS(fs.remaining(drop), std::invalid_argument);
  sim.run();
  CHECK(done.at_ps.count(drop) == 0);
  CHECK(done.at_ps.at(keep) == seconds_ps(2));
  CHECK_FALSE(fs.cancel_flow(keep));  // already finished
  CHECK_FALSE(fs.cancel_flow(0xdeadbeefULL));
}

TEST_CASE("FairShare: a flow started and cancelled before the solve leaves no trace", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  Finishes done{{}, &sim};
  const ResourceId link = fs.add_resource(kGB);
  const FlowId ghost = fs.start_flow(std::vector<ResourceId>{link}, kGB, done.record());
  CHECK(fs.cancel_flow(ghost));
  const FlowId real = fs.start_flow(std::vector<ResourceId>{link}, kGB, done.record());  // reuses the slot
  CHECK(real != ghost);
  sim.run();
  CHECK(done.at_ps.size() == 1);
  CHECK(done.at_ps.at(real) == seconds_ps(1));
  CHECK(fs.stats(link).busy_time == Time::seconds(1));
}

TEST_CASE("FairShare: changes at one instant are solved once", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  const ResourceId link = fs.add_resource(kGB);
  std::vector<FlowId> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(fs.start_flow(std::vector<ResourceId>{link}, kGB, {}));
  CHECK(fs.rate(ids[0]) == 0.0);  // not solved yet: the zero-delay event has not run
  sim.run_until(Time::zero());
  CHECK(fs.solves() == 1);
  CHECK(fs.rate(ids[0]) == Approx(kGB / 8));
  // The 8 departures at 1 s and the 8 arrivals their callbacks start are solved together.
  int restarted = 0;
  for (int i = 0; i < 8; ++i) {
    fs.cancel_flow(ids[i]);
    ids[i] = fs.start_flow(std::vector<ResourceId>{link}, kGB / 8, [&fs, &restarted, link](FlowId) {
      ++restarted;
      fs.start_flow(std::vector<ResourceId>{link}, kGB / 8, {});
    });
  }
  sim.run_until(Time::zero());
  CHECK(fs.solves() == 2);
  sim.run_until(Time::seconds(1.5));
  CHECK(restarted == 8);
  CHECK(fs.solves() == 3);
  CHECK(fs.active_flows() == 8);
  sim.run();
  CHECK(sim.now() == Time::seconds(2));
  CHECK(fs.solves() == 4);
}

TEST_CASE("FairShare: resource accounting of carried units, busy time and utilisation", "[fair_share]") {
  Simulator sim;
  FairShare fs(sim);
  const ResourceId link = fs.add_resource(kGB, "nic");
  CHECK(fs.name(link) == "nic");
  CHECK(fs.resource_count() == 1);
  fs.start_flow(std::vector<ResourceId>{link}, kGB, {}, 0.5 * kGB);  // half the link for 2 s
  sim.schedule_at(Time::seconds(3), [&] { fs.start_flow(std::vector<ResourceId>{link}, kGB, {}); });
  sim.run_until(Time::seconds(1));
  CHECK(fs.stats(link).utilisation == Approx(0.5));
  CHECK(fs.stats(link).active_flows == 1);
  CHECK(fs.stats(link).carried == Approx(0.5 * kGB));
  sim.run_until(Time::seconds(2.5));
  CHECK(fs.stats(link).utilisation == 0.0);
  CHECK(fs.stats(link).busy_time == Time::seconds(2));
  sim.run();
  const auto s = fs.stats(link);
  CHECK(s.carried == Approx(2 * kGB));
  CHECK(s.busy_time == Time::seconds(3));
  CHECK(s.active_flows == 0);
  CHECK(s.capacity == kGB);
}

TEST_CASE("FairShare: invalid input is rejected", "[fair_share][errors]") {
  Simulator sim;
  FairShare fs(sim);
  CHECK_THROWS_AS(fs.add_resource(0.0), std::invalid_argument);
  CHECK_THROWS_AS(fs.add_resource(-1.0), std::invalid_argument);
  CHECK_THROWS_AS(fs.add_resource(std::nan("")), std::invalid_argument);
  const ResourceId link = fs.add_resource(kGB);
  const ResourceId ideal = fs.add_resource(kInf);
  const std::vector<ResourceId> path{link};
  CHECK_THROWS_AS(fs.start_flow(path, -1.0, {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(path, std::nan(""), {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(path, kInf, {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(path, kGB, {}, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(path, kGB, {}, -5.0), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(std::vector<ResourceId>{7}, kGB, {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(std::vector<ResourceId>{link, link}, kGB, {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(std::vector<ResourceId>{ideal}, kGB, {}), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_flow(std::span<const ResourceId>{}, kGB, {}), std::invalid_argument);
  CHECK(fs.active_flows() == 0);  // nothing half-started
  CHECK_THROWS_AS(fs.stats(9), std::invalid_argument);
  CHECK_THROWS_AS(fs.name(9), std::invalid_argument);
  CHECK_THROWS_AS(fs.rate(12345), std::invalid_argument);
  CHECK_THROWS_AS(fs.start_time(12345), std::invalid_argument);
  sim.run();
  CHECK(sim.now() == Time::zero());
}

namespace {

struct RandomRun {
  std::vector<std::int64_t> finish_ps;  // in completion order
  std::vector<FlowId> finish_ids;
  double worst_error = 0;  // largest relative gap to the reference solver
  std::uint64_t checks = 0;
};

// Random arrivals, completions and cancellations on a small random graph; after every change the
// rates are compared with the from-scratch reference.
RandomRun random_run(std::uint64_t seed) {
  Simulator sim;
  FairShare fs(sim);
  std::mt19937_64 rng(seed);
  std::vector<double> capacity;
  for (int r = 0; r < 12; ++r) {
    capacity.push_back(r == 11 ? kInf : kGB * static_cast<double>(1 + rng() % 8));
    fs.add_resource(capacity.back());
  }
  struct Live {
    std::vector<ResourceId> path;
    double cap;
  };
  std::map<FlowId, Live> live;
  RandomRun out;
  auto check = [&] {
    fs.settle();
    std::vector<std::vector<ResourceId>> paths;
    std::vector<double> caps;
    std::vector<FlowId> ids;
    for (const auto& [id, l] : live) {
      if (fs.remaining(id) == 0.0) continue;  // zero-byte flows have no rate
      ids.push_back(id);
      paths.push_back(l.path);
      caps.push_back(l.cap);
    }
    const auto expect = reference_rates(capacity, paths, caps);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const double err = std::abs(fs.rate(ids[i]) - expect[i]) / expect[i];
      out.worst_error = std::max(out.worst_error, err);
    }
    ++out.checks;
  };
  std::function<void()> arrive;
  auto start_random = [&] {
    std::vector<ResourceId> path;
    const int hops = 1 + static_cast<int>(rng() % 3);
    while (static_cast<int>(path.size()) < hops) {
      const auto r = static_cast<ResourceId>(rng() % capacity.size());
      if (std::find(path.begin(), path.end(), r) == path.end()) path.push_back(r);
    }
    const double cap = (rng() % 4 == 0) ? kGB * 0.5 * static_cast<double>(1 + rng() % 4) : kInf;
    const double amount = (rng() % 10 == 0) ? 0.0 : kGB * 0.01 * static_cast<double>(1 + rng() % 100);
    const FlowId id = fs.start_flow(path, amount, [&out, &live, &sim](FlowId done) {
      out.finish_ps.push_back(sim.now().picoseconds());
      out.finish_ids.push_back(done);
      live.erase(done);
    }, cap);
    live[id] = Live{path, cap};
  };
  arrive = [&] {
    const int burst = 1 + static_cast<int>(rng() % 4);  // several arrivals at one instant
    for (int i = 0; i < burst; ++i) {
      try {
        start_random();
      } catch (const std::invalid_argument&) {
        // path over the infinite resource only, without a cap: rejected, as designed
      }
    }
    if (!live.empty() && rng() % 5 == 0) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      fs.cancel_flow(it->first);
      live.erase(it);
    }
    check();
    if (sim.now() < Time::ms(400)) sim.schedule_in(Time::us(static_cast<double>(rng() % 20000)), [&] { arrive(); });
  };
  sim.schedule_at(Time::zero(), [&] { arrive(); });
  sim.run();
  CHECK(live.empty());
  return out;
}

}  // namespace

TEST_CASE("FairShare: incremental solves match a from-scratch max-min solution", "[fair_share]") {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    const RandomRun run = random_run(seed);
    CHECK(run.checks > 20);
    CHECK(run.finish_ps.size() > 20);
    CHECK(run.worst_error < 1e-9);
  }
}

TEST_CASE("FairShare: identical runs give identical completion times", "[fair_share]") {
  const RandomRun first = random_run(42);
  const RandomRun second = random_run(42);
  CHECK(first.finish_ps == second.finish_ps);
  CHECK(first.finish_ids == second.finish_ids);
  CHECK(std::is_sorted(first.finish_ps.begin(), first.finish_ps.end()));
}

TEST_CASE("FairShare: many flows on one link finish in size order at the water-filling times", "[fair_share]") {
  // Every completion re-rates all remaining flows at once (the due-time heap's bulk rebuild); equal
  // sizes finish at the same instant in arrival order.
  Simulator sim;
  FairShare fs(sim);
  const double capacity = 8 * kGB;
  const ResourceId link = fs.add_resource(capacity);
  std::vector<int> units;  // flow sizes in quarter-GB, each size twice, in a shuffled order
  for (int k = 1; k <= 40; ++k) units.insert(units.end(), {k, k});
  std::shuffle(units.begin(), units.end(), std::mt19937_64(7));
  std::vector<FlowId> finished;
  std::vector<std::int64_t> finished_ps;
  std::map<FlowId, int> size_of;
  for (const int u : units) {
    const FlowId id = fs.start_flow(std::vector<ResourceId>{link}, 0.25 * kGB * u, [&](FlowId done) {
      finished.push_back(done);
      finished_ps.push_back(sim.now().picoseconds());
    });
    size_of[id] = u;
  }
  sim.run();
  REQUIRE(finished.size() == units.size());
  // Water filling by hand: while n flows remain, all gain capacity / n per second.
  double t = 0;
  double carried = 0;  // by each remaining flow so far
  for (std::size_t i = 0; i < finished.size(); ++i) {
    const double amount = 0.25 * kGB * size_of.at(finished[i]);
    t += (amount - carried) / (capacity / static_cast<double>(finished.size() - i));
    carried = amount;
    CHECK(std::abs(static_cast<double>(finished_ps[i]) - t * 1e12) <= 2.0);
    if (i > 0) {
      CHECK(size_of.at(finished[i - 1]) <= size_of.at(finished[i]));
      if (size_of.at(finished[i - 1]) == size_of.at(finished[i])) {
        CHECK(finished_ps[i - 1] == finished_ps[i]);
        CHECK((finished[i - 1] & 0xffffffffu) < (finished[i] & 0xffffffffu));
      }
    }
  }
}

TEST_CASE("FairShare: a newcomer on a link crowded with flows at many distinct rates", "[fair_share]") {
  // Each capped flow's rate sits just below the level the previous ones leave for the newcomer (by a
  // margin that shrinks fast enough that only one more rate falls below each successive level), the
  // worst case for bounding the restart level without sorting. The two uncapped flows must drop to
  // the newcomer's level: a restart level above their old rate would leave them untouched.
  Simulator sim;
  FairShare fs(sim);
  const double capacity = 100 * kGB;
  const ResourceId link = fs.add_resource(capacity);
  const int n = 12;
  const int uncapped = 2;
  std::vector<double> caps;
  double level = capacity / (n + uncapped + 1);
  double used = 0;
  double margin = 0.1;
  for (int k = 0; k < n; ++k) {
    caps.push_back(level * (1 - margin));
    used += caps.back();
    level = (capacity - used) / static_cast<double>(n - k - 1 + uncapped + 1);
    margin *= 0.3 / static_cast<double>(n - k + uncapped);
  }
  std::vector<FlowId> ids;
  std::vector<std::vector<ResourceId>> paths;
  for (int k = n - 1; k >= 0; --k) {  // arrival order unrelated to rate order
    ids.push_back(fs.start_flow(std::vector<ResourceId>{link}, kGB, {}, caps[static_cast<std::size_t>(k)]));
  }
  std::vector<double> ref_caps(caps.rbegin(), caps.rend());
  for (int u = 0; u < uncapped; ++u) {
    ids.push_back(fs.start_flow(std::vector<ResourceId>{link}, kGB, {}));
    ref_caps.push_back(kInf);
  }
  fs.settle();
  CHECK(fs.rate(ids.back()) == Approx((capacity - used) / uncapped).epsilon(1e-12));
  ids.push_back(fs.start_flow(std::vector<ResourceId>{link}, kGB, {}));
  ref_caps.push_back(kInf);
  fs.settle();
  paths.assign(ids.size(), std::vector<ResourceId>{link});
  const auto expect = reference_rates({capacity}, paths, ref_caps);
  for (std::size_t i = 0; i < ids.size(); ++i) CHECK(fs.rate(ids[i]) == Approx(expect[i]).epsilon(1e-12));
  CHECK(fs.rate(ids.back()) == Approx((capacity - used) / (uncapped + 1)).epsilon(1e-12));
  CHECK(fs.rate(ids[ids.size() - 2]) == Approx((capacity - used) / (uncapped + 1)).epsilon(1e-12));
}

// 100 hosts on 10 GB/s links and a 100 GB/s backbone, statistics off (so that equal-share groups form).
struct HostsOnBackbone {
  Simulator sim;
  FairShare fs{sim};
  Finishes done{{}, &sim};
  std::vector<ResourceId> host;
  ResourceId backbone = 0;
  HostsOnBackbone() {
    fs.keep_resource_stats(false);
    for (int h = 0; h < 100; ++h) host.push_back(fs.add_resource(10 * kGB));
    backbone = fs.add_resource(100 * kGB);
  }
  // A 1 GB flow from each host over the backbone, solved: 1 GB/s each, one group.
  std::vector<FlowId> one_per_host() {
    std::vector<FlowId> flows;
    for (const ResourceId h : host) flows.push_back(fs.start_flow(std::vector<ResourceId>{h, backbone}, kGB, done.record()));
    fs.settle();
    return flows;
  }
};

TEST_CASE("FairShare: flows sharing one saturated link move as a group: joins and departures re-fill nothing",
          "[fair_share]") {
  // 100 hosts on 10 GB/s links and a 100 GB/s backbone: 200 flows of 1 GB fill the backbone (0.5 GB/s each)
  // long before a host link (2 flows x 0.5 GB/s of 10); the group forms at the first solve.
  HostsOnBackbone c;
  auto& [sim, fs, done, host, backbone] = c;
  std::vector<FlowId> flows;
  for (int i = 0; i < 200; ++i) {
    flows.push_back(fs.start_flow(std::vector<ResourceId>{host[i % 100], backbone, host[(i + 1) % 100]},
                                  kGB * (1 + i % 2), done.record()));
  }
  fs.settle();
  CHECK(fs.rate(flows[0]) == Approx(0.5 * kGB));
  const auto refilled = fs.refilled_flows();
  // An arrival at 1 s joins the group: every member slows to 100/201 GB/s, and nothing is re-filled.
  sim.run_until(Time::seconds(1));
  CHECK(fs.remaining(flows[0]) == Approx(0.5 * kGB));
  const FlowId late = fs.start_flow(std::vector<ResourceId>{host[3], backbone, host[7]}, kGB, done.record());
  fs.settle();
  CHECK(fs.refilled_flows() == refilled);
  CHECK(fs.rate(late) == Approx(100.0 / 201 * kGB));
  CHECK(fs.rate(flows[0]) == Approx(100.0 / 201 * kGB));
  // A cancellation speeds the others up, again without a re-fill.
  CHECK(fs.cancel_flow(flows[5]));
  fs.settle();
  CHECK(fs.refilled_flows() == refilled);
  CHECK(fs.rate(late) == Approx(0.5 * kGB));
  // The 1 GB flows (even i) end at 1 s + 0.5 GB / 0.5 GB/s = 2 s, all at once.
  sim.run_until(Time::seconds(2.25));
  CHECK(done.at_ps.at(flows[0]) == seconds_ps(2));
  CHECK(done.at_ps.at(flows[198]) == seconds_ps(2));
  // 100 flows left (99 odd ones with 1 GB to go, the late one with 0.5 GB), 1 GB/s each: below a host link's
  // 10 GB/s over two flows, so the group is still the solution. The late one ends at 2.5 s; the 99 then move
  // at 100/99 GB/s and end at 2.5 s + 0.5 GB / (100/99 GB/s) = 2.995 s.
  CHECK(fs.rate(flows[1]) == Approx(kGB));
  sim.run();
  CHECK(done.at_ps.at(late) == seconds_ps(2.5));
  CHECK(done.at_ps.at(flows[1]) == seconds_ps(2.995));
  CHECK(done.at_ps.count(flows[5]) == 0);
  CHECK(fs.active_flows() == 0);
}

TEST_CASE("FairShare: a group dissolves when another link would bind or another flow crosses its links",
          "[fair_share]") {
  HostsOnBackbone c;
  auto& [sim, fs, done, host, backbone] = c;
  const std::vector<FlowId> flows = c.one_per_host();
  CHECK(fs.rate(flows[0]) == Approx(kGB));
  // A flow on host 0's link alone, not on the backbone: host 0's flow now shares 10 GB/s with it, but the
  // backbone still binds it at 100/100; the newcomer takes the rest, 9 GB/s. The group must have let the
  // per-flow solve see this.
  const FlowId local = fs.start_flow(std::vector<ResourceId>{host[0]}, kGB, done.record());
  fs.settle();
  CHECK(fs.rate(local) == Approx(9 * kGB));
  CHECK(fs.rate(flows[0]) == Approx(kGB));
  CHECK(fs.rate(flows[50]) == Approx(kGB));
  // Cancel 95 backbone flows: the 5 left would get 20 GB/s of the backbone, but their host links cap them at
  // 10 GB/s, and on host 0's link flows[0] and `local` share it at 5 GB/s each.
  for (int i = 5; i < 100; ++i) CHECK(fs.cancel_flow(flows[i]));
  fs.settle();
  CHECK(fs.rate(flows[1]) == Approx(10 * kGB));
  CHECK(fs.rate(flows[0]) == Approx(5 * kGB));
  CHECK(fs.rate(local) == Approx(5 * kGB));
  sim.run();
  CHECK(fs.active_flows() == 0);
}

TEST_CASE("FairShare: a group whose departures would raise its rate past a host link's dissolves",
          "[fair_share]") {
  HostsOnBackbone c;
  auto& [sim, fs, done, host, backbone] = c;
  const std::vector<FlowId> flows = c.one_per_host();
  const auto refilled = fs.refilled_flows();
  // 20 leave: 80 at 1.25 GB/s, still the backbone's: the group takes it.
  for (int i = 80; i < 100; ++i) CHECK(fs.cancel_flow(flows[i]));
  fs.settle();
  CHECK(fs.refilled_flows() == refilled);
  CHECK(fs.rate(flows[0]) == Approx(1.25 * kGB));
  // 75 more leave: 5 would get 20 GB/s of the backbone, past their host links' 10: the group dissolves and
  // the per-flow solve gives each its host link's 10 GB/s.
  for (int i = 5; i < 80; ++i) CHECK(fs.cancel_flow(flows[i]));
  fs.settle();
  CHECK(fs.refilled_flows() == refilled + 5);
  CHECK(fs.rate(flows[0]) == Approx(10 * kGB));
  CHECK(fs.remaining(flows[0]) == Approx(kGB));
  sim.run();
  CHECK(done.at_ps.at(flows[4]) == seconds_ps(0.1));
}

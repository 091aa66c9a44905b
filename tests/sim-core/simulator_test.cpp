#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim-core/simulator.h"

using hpcsim::EventId;
using hpcsim::Simulator;
using hpcsim::Time;

TEST_CASE("Time converts units and rounds to the nearest picosecond", "[time]") {
  CHECK(Time::ns(1.5).picoseconds() == 1500);
  CHECK(Time::us(2).picoseconds() == 2'000'000);
  CHECK(Time::seconds(1).picoseconds() == 1'000'000'000'000);
  CHECK(Time::ps(7).to_seconds() == Approx(7e-12));
  CHECK(Time::ns(0.0004).picoseconds() == 0);
  CHECK(Time::ns(0.0006).picoseconds() == 1);
  CHECK_THROWS_AS(Time::seconds(1e30), hpcsim::TimeRangeError);  // never saturates
  CHECK(Time::ms(1) + Time::ms(2) == Time::ms(3));
  CHECK(Time::ms(1) < Time::ms(2));
}

TEST_CASE("Events run in time order", "[simulator]") {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(Time::ns(30), [&] { order.push_back(3); });
  sim.schedule_at(Time::ns(10), [&] { order.push_back(1); });
  sim.schedule_at(Time::ns(20), [&] { order.push_back(2); });
  sim.run();
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(sim.now() == Time::ns(30));
  CHECK(sim.events_processed() == 3);
  CHECK(sim.pending() == 0);
}

TEST_CASE("Events at the same time run in insertion order", "[simulator]") {
  Simulator sim;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) sim.schedule_at(Time::us(1), [&order, i] { order.push_back(i); });
  sim.run();
  REQUIRE(order.size() == 100);
  for (int i = 0; i < 100; ++i) CHECK(order[i] == i);
}

TEST_CASE("An event scheduled for now from inside an event runs after those already queued", "[simulator]") {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(Time::ns(5), [&] {
    order.push_back(1);
    sim.schedule_in(Time::zero(), [&] { order.push_back(3); });
  });
  sim.schedule_at(Time::ns(5), [&] { order.push_back(2); });
  sim.run();
  CHECK(order == std::vector<int>{1, 2, 3});
}

TEST_CASE("schedule_in is relative to the current time", "[simulator]") {
  Simulator sim;
  Time fired;
  sim.schedule_at(Time::ns(100), [&] { sim.schedule_in(Time::ns(50), [&] { fired = sim.now(); }); });
  sim.run();
  CHECK(fired == Time::ns(150));
}

TEST_CASE("Cancelled events do not run and stale handles are rejected", "[simulator]") {
  Simulator sim;
  int ran = 0;
  EventId a = sim.schedule_at(Time::ns(1), [&] { ran += 1; });
  EventId b = sim.schedule_at(Time::ns(2), [&] { ran += 10; });
  CHECK(sim.pending() == 2);
  CHECK(sim.cancel(a));
  CHECK_FALSE(sim.cancel(a));  // already cancelled
  CHECK(sim.pending() == 1);
  sim.run();
  CHECK(ran == 10);
  CHECK_FALSE(sim.cancel(b));  // already ran
  CHECK_FALSE(sim.cancel(EventId{}));
  // A reused slot gets a new generation, so an old handle cannot cancel the new event.
  EventId c = sim.schedule_in(Time::ns(1), [&] { ran += 100; });
  CHECK_FALSE(sim.cancel(a));
  CHECK(sim.is_pending(c));
  sim.run();
  CHECK(ran == 110);
}

TEST_CASE("Scheduling in the past or with a negative delay is an error", "[simulator][errors]") {
  Simulator sim;
  sim.schedule_at(Time::ns(10), [] {});
  sim.run();
  CHECK_THROWS_AS(sim.schedule_at(Time::ns(5), [] {}), std::invalid_argument);
  CHECK_THROWS_AS(sim.schedule_in(Time::ps(-1), [] {}), std::invalid_argument);
  CHECK_THROWS_AS(sim.schedule_at(Time::ns(20), Simulator::Callback{}), std::invalid_argument);
  CHECK(sim.pending() == 0);
}

TEST_CASE("run_until stops at the limit and advances the clock", "[simulator]") {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(Time::ns(10), [&] { order.push_back(1); });
  sim.schedule_at(Time::ns(20), [&] { order.push_back(2); });
  sim.schedule_at(Time::ns(30), [&] { order.push_back(3); });
  sim.run_until(Time::ns(20));
  CHECK(order == std::vector<int>{1, 2});
  CHECK(sim.now() == Time::ns(20));
  sim.run_until(Time::ns(25));
  CHECK(sim.now() == Time::ns(25));
  CHECK(sim.pending() == 1);
  sim.run();
  CHECK(order == std::vector<int>{1, 2, 3});
}

TEST_CASE("stop() ends the run after the current event", "[simulator]") {
  Simulator sim;
  int ran = 0;
  sim.schedule_at(Time::ns(1), [&] { ++ran; sim.stop(); });
  sim.schedule_at(Time::ns(2), [&] { ++ran; });
  sim.run();
  CHECK(ran == 1);
  CHECK(sim.pending() == 1);
  sim.run();
  CHECK(ran == 2);
}

TEST_CASE("A large random workload pops in nondecreasing time and is reproducible", "[simulator]") {
  auto trace = [] {
    Simulator sim;
    std::vector<std::int64_t> times;
    std::uint64_t x = 12345;
    auto next = [&x] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; };
    std::vector<EventId> ids;
    for (int i = 0; i < 20000; ++i) {
      ids.push_back(sim.schedule_at(Time::ps(static_cast<std::int64_t>(next() % 1000)),
                                    [&times, &sim] { times.push_back(sim.now().picoseconds()); }));
    }
    for (std::size_t i = 0; i < ids.size(); i += 3) sim.cancel(ids[i]);
    sim.run();
    return times;
  };
  const auto a = trace();
  CHECK(a.size() == 20000 - 6667);
  for (std::size_t i = 1; i < a.size(); ++i) REQUIRE(a[i - 1] <= a[i]);
  CHECK(trace() == a);
}

TEST_CASE("A watch runs every N events and does not change the run", "[simulator]") {
  const auto run = [](std::uint64_t every, std::vector<std::uint64_t>* seen) {
    Simulator sim;
    std::vector<int> order;
    for (int i = 0; i < 10; ++i) {
      sim.schedule_at(Time::seconds(10 - i), [&order, i] { order.push_back(i); });
    }
    if (seen) sim.set_watch(every, [&sim, seen] { seen->push_back(sim.events_processed()); });
    sim.run();
    return std::pair{order, sim.now()};
  };
  std::vector<std::uint64_t> seen;
  const auto watched = run(3, &seen);
  CHECK(seen == std::vector<std::uint64_t>{3, 6, 9});
  CHECK(watched == run(0, nullptr));
  Simulator sim;
  CHECK_THROWS_AS(sim.set_watch(0, [] {}), std::invalid_argument);
  sim.set_watch(0, {});  // an empty watch removes it: no error
}

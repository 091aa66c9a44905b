#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sim-core/process.h"
#include "sim-core/simulator.h"
#include "sim-core/time.h"

using hpcsim::Process;
using hpcsim::Simulator;
using hpcsim::Time;
using hpcsim::TimeRangeError;
using hpcsim::sleep_for;
using hpcsim::sleep_until;

namespace {

constexpr std::int64_t kNsPerDay = 86'400'000'000'000;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TimeRangeError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Time spans years at picosecond resolution", "[time]") {
  const Time two_years = Time::days(730);
  CHECK(two_years.nanoseconds() == 730 * kNsPerDay);
  // One picosecond still tells two times apart two years in.
  CHECK(two_years + Time::ps(1) > two_years);
  CHECK((two_years + Time::ps(1) - two_years).picoseconds() == 1);
  CHECK(Time::seconds(730 * 86400.0) == two_years);
  CHECK(two_years.to_seconds() == 730 * 86400.0);
  CHECK(Time::days(730).to_string() == "63072000000000000000 ps");
  // Up to 2^63 ps (106 days) values convert as the 64-bit clock did: rounded half away from zero.
  CHECK(Time::seconds(1e6 + 0.4e-12).picoseconds() == Time::seconds(1e6).picoseconds());
  CHECK(Time::ns(-1.5).picoseconds() == -1500);
  CHECK(Time::ns(-1.5).nanoseconds() == -2);
}

TEST_CASE("An out-of-range time is an error naming the value", "[time]") {
  CHECK_THAT(message_of([] { Time::seconds(1e30); }), Catch::Contains("time 1e+30 s is out of range"));
  CHECK_THAT(message_of([] { Time::days(-2e12); }), Catch::Contains("time -2000000000000 days is out of range"));
  CHECK_THAT(message_of([] { Time::seconds(std::numeric_limits<double>::quiet_NaN()); }), Catch::Contains("nan s"));
  CHECK_THROWS_AS(Time::us(std::numeric_limits<double>::infinity()), TimeRangeError);
  CHECK_NOTHROW(Time::seconds(3e16));  // about a billion years: still in range
  // Past the end of time the simulator refuses the event and names it in exact picoseconds.
  Simulator sim;
  const Time past_end = Time::max() + Time::ps(1);
  CHECK_THAT(message_of([&] { sim.schedule_at(past_end, [] {}); }),
             Catch::Contains("time 39614081257132168796771975168 ps is out of range"));
  CHECK(sim.pending() == 0);
  CHECK_NOTHROW(sim.schedule_at(Time::max(), [] {}));
}

TEST_CASE("730 days of events run in exact nanosecond order", "[time][simulator]") {
  // Events at random nanoseconds over two years, many sharing a time, plus chains that tick every
  // nanosecond across the 2^63 ps boundary (day 106.75) and at the end: each event checks the clock
  // reads exactly its scheduled nanosecond and that no event ran out of (time, insertion) order.
  Simulator sim;
  std::mt19937_64 rng(20261203);
  std::uniform_int_distribution<std::int64_t> day_ns(0, 730 * kNsPerDay);
  struct Seen {
    std::int64_t ns;
    int seq;
  };
  std::vector<Seen> seen;
  int errors = 0;
  int seq = 0;
  auto expect_at = [&](std::int64_t ns) {
    const int my_seq = seq++;
    return [&, ns, my_seq] {
      if (sim.now() != Time::ps_exact(Time::Rep{ns} * 1000)) ++errors;
      seen.push_back({ns, my_seq});
    };
  };
  std::vector<std::int64_t> shared_times;
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t ns = i % 4 == 0 && !shared_times.empty() ? shared_times[rng() % shared_times.size()] : day_ns(rng);
    if (i % 4 == 1) shared_times.push_back(ns);
    sim.schedule_at(Time::ps_exact(Time::Rep{ns} * 1000), expect_at(ns));
  }
  // Two processes ticking every nanosecond, each wait relative to now: across the 2^63 ps boundary and at
  // the end of the two years.
  const std::int64_t boundary_ns = std::numeric_limits<std::int64_t>::max() / 1000;  // 2^63 ps
  auto ticker = [](Simulator& s, std::int64_t start_ns, std::vector<Seen>& out, int& next_seq) -> Process {
    co_await sleep_until(s, Time::ps_exact(Time::Rep{start_ns} * 1000));
    for (int tick = 0; tick < 1000; ++tick) {
      out.push_back({static_cast<std::int64_t>(s.now().nanoseconds()), next_seq++});
      if (tick + 1 < 1000) co_await sleep_for(s, Time::ns(1));
    }
  };
  Process across_boundary = ticker(sim, boundary_ns - 500, seen, seq);
  Process at_the_end = ticker(sim, 730 * kNsPerDay - 1000, seen, seq);
  across_boundary.start(sim);
  at_the_end.start(sim);
  sim.run();
  CHECK(across_boundary.done());
  CHECK(at_the_end.done());
  CHECK(errors == 0);
  REQUIRE(seen.size() == 20000 + 2000);
  int out_of_order = 0;
  for (std::size_t i = 1; i < seen.size(); ++i) {
    if (seen[i].ns < seen[i - 1].ns || (seen[i].ns == seen[i - 1].ns && seen[i].seq < seen[i - 1].seq)) ++out_of_order;
  }
  CHECK(out_of_order == 0);
  CHECK(sim.now() >= Time::days(730) - Time::ns(1));  // the second chain's last tick
  CHECK(sim.now() <= Time::days(730));
}

TEST_CASE("Events more than 2^64 ps apart keep their order, cancelled ones included", "[time][simulator]") {
  Simulator sim;
  std::vector<int> order;
  const hpcsim::EventId cancelled = sim.schedule_at(Time::days(300), [&] { order.push_back(-1); });
  sim.schedule_at(Time::days(900), [&] { order.push_back(3); });
  sim.schedule_at(Time::days(300) + Time::ps(1), [&] { order.push_back(1); });
  sim.schedule_at(Time::days(900), [&] { order.push_back(4); });  // same time: after the first
  sim.schedule_at(Time::days(600), [&] { order.push_back(2); });
  CHECK(sim.cancel(cancelled));
  sim.run();
  CHECK(order == std::vector<int>{1, 2, 3, 4});
  CHECK(sim.now() == Time::days(900));

  // Only a cancelled event far ahead: the clock stays, and an event before it still runs at its time.
  Simulator quiet;
  quiet.cancel(quiet.schedule_at(Time::days(300), [] {}));
  quiet.run();
  CHECK(quiet.now() == Time::zero());
  Time ran_at = Time::zero();
  quiet.schedule_at(Time::days(1), [&] { ran_at = quiet.now(); });
  quiet.schedule_at(Time::days(500), [] {});
  quiet.run();
  CHECK(ran_at == Time::days(1));
  CHECK(quiet.now() == Time::days(500));
}

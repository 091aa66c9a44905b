#include "sim-core/executor.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

using namespace hpcsim;

namespace {

constexpr OpType kTimed = 0;  // duration in ps is the op's payload
constexpr OpType kOther = 1;

OpId timed(ExecutionGraph& g, const char* name, std::int64_t ps, StreamId stream, std::vector<OpId> deps = {}) {
  return g.add_op({.name = name, .type = kTimed, .stream = stream, .payload = std::uint64_t(ps),
                   .deps = std::move(deps)});
}

void use_payload_durations(Executor& ex, const ExecutionGraph& g) {
  ex.set_fixed_duration(kTimed, [&g](OpId op) { return Time::ps(std::int64_t(g.payload(op))); });
}

std::int64_t ps(Time t) { return t.picoseconds(); }

}  // namespace

TEST_CASE("executor: a linear chain runs back to back", "[executor]") {
  ExecutionGraph g;
  const OpId a = timed(g, "a", 10, kNoStream);
  const OpId b = timed(g, "b", 20, kNoStream, {a});
  const OpId c = timed(g, "c", 5, kNoStream, {b});
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  CHECK(ps(ex.run()) == 35);
  CHECK(ex.finished());
  CHECK(ps(ex.op_start(a)) == 0);
  CHECK(ps(ex.op_end(a)) == 10);
  CHECK(ps(ex.op_start(b)) == 10);
  CHECK(ps(ex.op_end(b)) == 30);
  CHECK(ps(ex.op_start(c)) == 30);
  CHECK(ps(ex.op_end(c)) == 35);
  CHECK(ex.completed_count() == 3);
}

TEST_CASE("executor: a diamond takes as long as its longest branch", "[executor]") {
  ExecutionGraph g;
  const OpId top = timed(g, "top", 4, kNoStream);
  const OpId fast = timed(g, "fast", 10, kNoStream, {top});
  const OpId slow = timed(g, "slow", 30, kNoStream, {top});
  const OpId join = timed(g, "join", 6, kNoStream, {fast, slow});
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  CHECK(ps(ex.run()) == 4 + 30 + 6);
  CHECK(ps(ex.op_start(fast)) == 4);
  CHECK(ps(ex.op_start(slow)) == 4);
  CHECK(ps(ex.op_start(join)) == 34);
}

TEST_CASE("executor: two streams overlap, one stream serialises", "[executor]") {
  const auto makespan_with_streams = [](StreamId first, StreamId second) {
    ExecutionGraph g;
    for (int i = 0; i < 3; ++i) {
      timed(g, "x", 10, first);
      timed(g, "y", 7, second);
    }
    g.finalize();
    Simulator sim;
    Executor ex(sim, g);
    use_payload_durations(ex, g);
    return ps(ex.run());
  };
  CHECK(makespan_with_streams(0, 1) == 30);  // the longer stream bounds it
  CHECK(makespan_with_streams(0, 0) == 51);  // everything in program order
}

TEST_CASE("executor: stream order holds without explicit dependencies", "[executor]") {
  ExecutionGraph g;
  const OpId slow = timed(g, "slow", 50, 3);
  const OpId other = timed(g, "other", 1, 4);
  const OpId quick = timed(g, "quick", 1, 3);  // ready at once but for its stream
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  ex.run();
  CHECK(ps(ex.op_start(other)) == 0);
  CHECK(ps(ex.op_start(quick)) == ps(ex.op_end(slow)));
  CHECK(ps(ex.op_end(quick)) == 51);
}

TEST_CASE("executor: ops released at the same time start in id order", "[executor]") {
  // first_done ends before second_done at the same instant and releases the higher id; the lower id,
  // released by the second completion, must still start first.
  ExecutionGraph g;
  const OpId low = g.add_op("low", kOther, kNoStream);
  const OpId high = g.add_op("high", kOther, kNoStream);
  const OpId first_done = timed(g, "first_done", 5, kNoStream);
  const OpId second_done = timed(g, "second_done", 5, kNoStream);
  g.add_dependency(first_done, high);
  g.add_dependency(second_done, low);
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  std::vector<OpId> started;
  ex.set_handler(kOther, [&](OpId op, Completion done) {
    started.push_back(op);
    done();
  });
  ex.run();
  CHECK(started == std::vector<OpId>{low, high});
  CHECK(ps(ex.op_start(low)) == 5);
  CHECK(ps(ex.op_start(high)) == 5);
}

TEST_CASE("executor: roots start in id order too", "[executor]") {
  ExecutionGraph g;
  for (int i = 0; i < 5; ++i) g.add_op("r", kOther, StreamId(4 - i));
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  std::vector<OpId> started;
  ex.set_handler(kOther, [&](OpId op, Completion done) {
    started.push_back(op);
    done();
  });
  ex.run();
  CHECK(started == std::vector<OpId>{0, 1, 2, 3, 4});
}

TEST_CASE("executor: an async handler completes from a later event", "[executor]") {
  ExecutionGraph g;
  const OpId flow = g.add_op("flow", kOther, 0);
  const OpId after = timed(g, "after", 2, 0);
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  ex.set_handler(kOther, [&sim](OpId, Completion done) {
    // Two hops, as a flow model would: progress at +3, finish at +4 more.
    sim.schedule_in(Time::ps(3), [&sim, done] { sim.schedule_in(Time::ps(4), [done] { done(); }); });
  });
  CHECK(ps(ex.run()) == 9);
  CHECK(ps(ex.op_end(flow)) == 7);
  CHECK(ps(ex.op_start(after)) == 7);
}

TEST_CASE("executor: zero-duration and synchronous ops take no time", "[executor]") {
  ExecutionGraph g;
  const OpId z1 = timed(g, "z1", 0, 0);
  const OpId sync = g.add_op("sync", kOther, 0);
  const OpId z2 = timed(g, "z2", 0, 0);
  const OpId work = timed(g, "work", 10, 0);
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  ex.set_handler(kOther, [](OpId, Completion done) { done(); });
  CHECK(ps(ex.run()) == 10);
  for (OpId op : {z1, sync, z2}) {
    CHECK(ps(ex.op_start(op)) == 0);
    CHECK(ps(ex.op_end(op)) == 0);
  }
  CHECK(ps(ex.op_start(work)) == 0);
}

TEST_CASE("executor: times are relative to when the run starts: finish is reported once", "[executor]") {
  ExecutionGraph g;
  const OpId a = timed(g, "a", 10, 0);
  timed(g, "b", 15, 1, {a});
  g.finalize();
  Simulator sim;
  sim.run_until(Time::ps(100));
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  int reports = 0;
  Time reported;
  ex.on_finished([&](Time makespan) {
    ++reports;
    reported = makespan;
  });
  CHECK(ps(ex.run()) == 25);
  CHECK(reports == 1);
  CHECK(ps(reported) == 25);
  CHECK(ps(ex.start_time()) == 100);
  CHECK(ps(ex.op_start(a)) == 100);
  CHECK(ps(sim.now()) == 125);
}

TEST_CASE("executor: an empty graph finishes at once", "[executor]") {
  ExecutionGraph g;
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  bool reported = false;
  ex.on_finished([&](Time) { reported = true; });
  CHECK(ps(ex.run()) == 0);
  CHECK(ex.finished());
  CHECK(reported);
}

TEST_CASE("executor: identical inputs give identical timings", "[executor]") {
  const auto run_once = [] {
    std::mt19937 rng(1234);  // fixed seed: the same graph both times
    ExecutionGraph g;
    for (OpId i = 0; i < 300; ++i) {
      std::vector<OpId> deps;
      if (i > 0 && rng() % 3 == 0) deps.push_back(OpId(rng() % i));
      const auto type = OpType(rng() % 2);
      g.add_op({.name = "op", .type = type, .stream = StreamId(rng() % 4),
                .payload = rng() % 1000, .deps = deps});
    }
    g.finalize();
    Simulator sim;
    Executor ex(sim, g);
    use_payload_durations(ex, g);
    std::vector<OpId> order;
    ex.set_handler(kOther, [&](OpId op, Completion done) {
      order.push_back(op);
      sim.schedule_in(Time::ps(std::int64_t(g.payload(op) / 2)), [done] { done(); });
    });
    ex.run();
    return std::make_tuple(ex.op_starts(), ex.op_ends(), order);
  };
  const auto first = run_once();
  const auto second = run_once();
  CHECK(std::get<0>(first) == std::get<0>(second));
  CHECK(std::get<1>(first) == std::get<1>(second));
  CHECK(std::get<2>(first) == std::get<2>(second));
  CHECK_FALSE(std::get<2>(first).empty());
}

TEST_CASE("executor: an op type without a handler is rejected before anything runs", "[executor][errors]") {
  ExecutionGraph g;
  timed(g, "fine", 5, 0);
  g.add_op("orphan", 9, 1);
  g.finalize();
  Simulator sim;
  Executor ex(sim, g);
  use_payload_durations(ex, g);
  CHECK_THROWS_WITH(ex.run(), Catch::Contains("no handler for op type 9") && Catch::Contains("'orphan'"));
  CHECK(sim.pending() == 0);
  CHECK(ex.completed_count() == 0);
}

TEST_CASE("executor: misuse is reported", "[executor][errors]") {
  ExecutionGraph g;
  const OpId a = g.add_op("a", kOther, 0);
  const OpId b = g.add_op("b", kOther, 0);
  Simulator sim;
  CHECK_THROWS_AS(Executor(sim, g), GraphError);  // not finalized
  g.finalize();

  SECTION("empty handlers and duration functions") {
    Executor ex(sim, g);
    CHECK_THROWS_AS(ex.set_handler(kOther, nullptr), ExecutionError);
    CHECK_THROWS_AS(ex.set_fixed_duration(kOther, nullptr), ExecutionError);
  }
  SECTION("completing an op that is not running, twice, or unknown") {
    Executor ex(sim, g);
    CHECK_THROWS_WITH(ex.complete(a), Catch::Contains("not started"));
    ex.set_handler(kOther, [](OpId, Completion) {});  // holds ops open
    ex.start();
    CHECK_THROWS_WITH(ex.complete(a), Catch::Contains("is not running"));  // released, not yet started
    sim.run();
    ex.complete(a);
    CHECK_THROWS_WITH(ex.complete(a), Catch::Contains("already completed"));
    CHECK_THROWS_WITH(ex.complete(b), Catch::Contains("is not running"));  // released, not started
    CHECK_THROWS_WITH(ex.complete(77), Catch::Contains("unknown op id 77"));
    CHECK_THROWS_WITH(ex.start(), Catch::Contains("twice"));
  }
  SECTION("a handler that never completes stalls the run") {
    Executor ex(sim, g);
    ex.set_handler(kOther, [](OpId, Completion) {});
    CHECK_THROWS_WITH(ex.run(), Catch::Contains("2 of 2 ops never completed") && Catch::Contains("'a'") &&
                                    Catch::Contains("never completed it"));
    CHECK_FALSE(ex.finished());
  }
  SECTION("a negative fixed duration") {
    Executor ex(sim, g);
    ex.set_fixed_duration(kOther, [](OpId) { return Time::ps(-1); });
    CHECK_THROWS_WITH(ex.run(), Catch::Contains("negative duration") && Catch::Contains("'a'"));
  }
}

TEST_CASE("executor: a completion token fits a simulator callback with room to spare", "[executor]") {
  STATIC_REQUIRE(sizeof(Completion) <= 16);
}

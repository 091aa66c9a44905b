#include <catch2/catch.hpp>
#include <vector>

#include "sim-core/critical_path.h"

using namespace hpcsim;

namespace {

constexpr OpType kTimed = 0;
constexpr OpTag kCompute = 1;
constexpr OpTag kComm = 2;
constexpr OpTag kIo = 3;

OpId timed(ExecutionGraph& g, const char* name, std::int64_t ps, StreamId stream, OpTag tag,
           std::vector<OpId> deps = {}) {
  return g.add_op({.name = name, .type = kTimed, .stream = stream, .payload = std::uint64_t(ps), .tag = tag,
                   .deps = std::move(deps)});
}

struct Run {
  Simulator sim;
  Executor ex;
  explicit Run(const ExecutionGraph& g) : ex(sim, g) {
    ex.set_fixed_duration(kTimed, [&g](OpId op) { return Time::ps(std::int64_t(g.payload(op))); });
    ex.run();
  }
};

std::int64_t ps(Time t) { return t.picoseconds(); }
std::vector<Time> times(std::initializer_list<std::int64_t> v) {
  std::vector<Time> out;
  for (auto x : v) out.push_back(Time::ps(x));
  return out;
}

}  // namespace

TEST_CASE("critical path: a diamond's path runs through the long branch", "[critical-path]") {
  ExecutionGraph g;
  const OpId top = timed(g, "top", 4, kNoStream, kCompute);
  const OpId slow = timed(g, "slow", 30, kNoStream, kComm, {top});
  const OpId fast = timed(g, "fast", 10, kNoStream, kCompute, {top});
  const OpId join = timed(g, "join", 6, kNoStream, kCompute, {fast, slow});
  g.finalize();
  Run run(g);
  const CriticalPath path = critical_path(run.ex);
  CHECK(path.ops == std::vector<OpId>{top, slow, join});
  CHECK(ps(path.length()) == ps(run.ex.makespan()));
  CHECK(ps(path.time_by_tag[kCompute]) == 10);
  CHECK(ps(path.time_by_tag[kComm]) == 30);
  CHECK(ps(path.time_by_tag[kIo]) == 0);
  CHECK(ps(path.waiting) == 0);
}

TEST_CASE("critical path: the longer of two streams, with stream order as the predecessor", "[critical-path]") {
  ExecutionGraph g;
  const OpId c1 = timed(g, "c1", 10, 0, kCompute);
  const OpId m1 = timed(g, "m1", 25, 1, kComm);
  const OpId c2 = timed(g, "c2", 10, 0, kCompute);  // stream predecessor c1
  const OpId m2 = timed(g, "m2", 5, 1, kComm);      // stream predecessor m1
  const OpId step = timed(g, "step", 3, 0, kCompute, {m2});
  g.finalize();
  Run run(g);
  CHECK(ps(run.ex.makespan()) == 33);
  const CriticalPath path = critical_path(run.ex);
  CHECK(path.ops == std::vector<OpId>{m1, m2, step});
  CHECK(ps(path.time_by_tag[kComm]) == 30);  // communication left exposed
  CHECK(ps(path.time_by_tag[kCompute]) == 3);
  (void)c1;
  (void)c2;
}

TEST_CASE("critical path: equal end times keep the later op in dependency order", "[critical-path]") {
  ExecutionGraph g;
  const OpId work = timed(g, "work", 8, 0, kCompute);
  const OpId marker = timed(g, "marker", 0, 0, kIo);  // ends with work, but after it
  g.finalize();
  Run run(g);
  const CriticalPath path = critical_path(run.ex);
  CHECK(path.ops == std::vector<OpId>{work, marker});
  CHECK(ps(path.end) == 8);
}

TEST_CASE("critical path: gaps on the path count as waiting", "[critical-path]") {
  // Hand-made timings: b starts 5 ps after its input ended (a model that delays a start).
  ExecutionGraph g;
  const OpId a = timed(g, "a", 0, kNoStream, kCompute);
  const OpId b = timed(g, "b", 0, kNoStream, kComm, {a});
  g.finalize();
  const auto starts = times({2, 15});
  const auto ends = times({10, 20});
  const CriticalPath path = critical_path(g, starts, ends);
  CHECK(path.ops == std::vector<OpId>{a, b});
  CHECK(ps(path.start) == 2);
  CHECK(ps(path.waiting) == 5);
  CHECK(ps(path.length()) == ps(path.time_by_tag.total() + path.waiting));
  CHECK(ps(path.time_by_tag.total()) == 13);
}

TEST_CASE("critical path: an empty graph has an empty path", "[critical-path]") {
  ExecutionGraph g;
  g.finalize();
  const CriticalPath path = critical_path(g, {}, {});
  CHECK(path.ops.empty());
  CHECK(ps(path.length()) == 0);
}

TEST_CASE("stream busy: per stream, per tag, as a union of intervals", "[critical-path]") {
  ExecutionGraph g;
  timed(g, "s7a", 0, 7, kCompute);
  timed(g, "s7b", 0, 7, kComm);
  timed(g, "s7c", 0, 7, kCompute);
  timed(g, "s2a", 0, 2, kIo);
  timed(g, "free", 0, kNoStream, kIo);
  g.finalize();
  // Overlapping on stream 7 on purpose, to exercise the union: [0,10) [5,12) [20,30).
  const auto starts = times({0, 5, 20, 3, 0});
  const auto ends = times({10, 12, 30, 4, 100});
  const auto busy = stream_busy(g, starts, ends);
  REQUIRE(busy.size() == 2);
  CHECK(busy[0].stream == 2);  // ascending by stream id, whatever the insertion order
  CHECK(ps(busy[0].busy) == 1);
  CHECK(ps(busy[0].busy_by_tag[kIo]) == 1);
  CHECK(busy[1].stream == 7);
  CHECK(ps(busy[1].busy) == 12 + 10);
  CHECK(ps(busy[1].busy_by_tag[kCompute]) == 20);
  CHECK(ps(busy[1].busy_by_tag[kComm]) == 7);
  CHECK(ps(busy[1].busy_by_tag[kIo]) == 0);

  const TagTimes overall = busy_by_tag(g, starts, ends);
  CHECK(ps(overall[kIo]) == 100);  // [3,4) lies inside the free op's [0,100)
  CHECK(ps(overall[kCompute]) == 20);
  CHECK(ps(overall[kComm]) == 7);
}

TEST_CASE("stream busy: from an executor run", "[critical-path]") {
  ExecutionGraph g;
  timed(g, "c", 10, 0, kCompute);
  timed(g, "m", 4, 1, kComm);
  timed(g, "c2", 6, 0, kCompute);
  g.finalize();
  Run run(g);
  const auto busy = stream_busy(run.ex);
  REQUIRE(busy.size() == 2);
  CHECK(ps(busy[0].busy) == 16);
  CHECK(ps(busy[1].busy_by_tag[kComm]) == 4);
  CHECK(busy[1].busy_by_tag.tag_count() == kComm + 1);
}

TEST_CASE("critical path: bad inputs are rejected", "[critical-path][errors]") {
  ExecutionGraph g;
  timed(g, "a", 5, 0, kCompute);
  SECTION("graph not finalized") {
    CHECK_THROWS_AS(critical_path(g, times({0}), times({5})), GraphError);
  }
  g.finalize();
  SECTION("timings of the wrong size") {
    CHECK_THROWS_AS(critical_path(g, times({0, 1}), times({5})), std::invalid_argument);
    CHECK_THROWS_AS(stream_busy(g, times({0}), {}), std::invalid_argument);
    CHECK_THROWS_AS(busy_by_tag(g, {}, times({5})), std::invalid_argument);
  }
  SECTION("an executor that has not finished") {
    Simulator sim;
    Executor ex(sim, g);
    ex.set_fixed_duration(kTimed, [](OpId) { return Time::ps(5); });
    ex.start();
    CHECK_THROWS_AS(critical_path(ex), ExecutionError);
    CHECK_THROWS_AS(stream_busy(ex), ExecutionError);
    sim.run();
    CHECK(critical_path(ex).ops.size() == 1);
  }
}

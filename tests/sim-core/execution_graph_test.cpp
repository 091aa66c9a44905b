#include "sim-core/execution_graph.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

using namespace hpcsim;

namespace {

std::vector<OpId> to_vector(std::span<const OpId> s) { return {s.begin(), s.end()}; }

std::string finalize_error(ExecutionGraph& g) {
  try {
    g.finalize();
  } catch (const GraphError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("graph: ops get dense ids and keep their attributes", "[graph]") {
  ExecutionGraph g;
  const OpId a = g.add_op({.name = "a", .type = 3, .stream = 7, .payload = 42, .tag = 2});
  const OpId b = g.add_op("b", 1, kNoStream);
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK(g.size() == 2);
  CHECK(g.name(a) == "a");
  CHECK(g.type(a) == 3);
  CHECK(g.stream(a) == 7);
  CHECK(g.payload(a) == 42);
  CHECK(g.tag(a) == 2);
  CHECK(g.stream(b) == kNoStream);
  CHECK(g.tag(b) == 0);
  CHECK_THROWS_AS(g.name(5), std::out_of_range);
}

TEST_CASE("graph: stream order is an implicit dependency on the previous op of that stream", "[graph]") {
  ExecutionGraph g;
  const OpId s0a = g.add_op("s0a", 0, 0);
  const OpId s1a = g.add_op("s1a", 0, 1);
  const OpId s0b = g.add_op("s0b", 0, 0);
  const OpId free_op = g.add_op("free", 0, kNoStream);
  const OpId s1b = g.add_op("s1b", 0, 1, {s0b});
  g.finalize();
  CHECK(g.stream_predecessor(s0a) == kNoOp);
  CHECK(g.stream_predecessor(s0b) == s0a);
  CHECK(g.stream_predecessor(s1b) == s1a);
  CHECK(g.stream_predecessor(free_op) == kNoOp);
  CHECK(to_vector(g.predecessors(s1b)) == std::vector<OpId>{s1a, s0b});
  CHECK(to_vector(g.successors(s0a)) == std::vector<OpId>{s0b});
  CHECK(to_vector(g.successors(s0b)) == std::vector<OpId>{s1b});
  CHECK(g.predecessors(free_op).empty());
}

TEST_CASE("graph: duplicate edges are merged and predecessors come sorted by id", "[graph]") {
  ExecutionGraph g;
  const OpId a = g.add_op("a", 0, 0);
  const OpId b = g.add_op("b", 0, 5);
  const OpId c = g.add_op("c", 0, 0, {b, a, b});  // a is also c's stream predecessor
  g.add_dependency(b, c);
  g.finalize();
  CHECK(to_vector(g.predecessors(c)) == std::vector<OpId>{a, b});
  CHECK(to_vector(g.successors(b)) == std::vector<OpId>{c});
}

TEST_CASE("graph: topological order puts every op after its inputs", "[graph]") {
  ExecutionGraph g;
  const OpId a = g.add_op("a", 0, kNoStream);
  const OpId b = g.add_op("b", 0, kNoStream);
  const OpId c = g.add_op("c", 0, kNoStream);
  g.add_dependency(c, a);  // a later id may come first
  g.add_dependency(a, b);
  g.finalize();
  const auto order = to_vector(g.topological_order());
  REQUIRE(order.size() == 3);
  const auto pos = [&](OpId op) { return std::find(order.begin(), order.end(), op) - order.begin(); };
  CHECK(pos(c) < pos(a));
  CHECK(pos(a) < pos(b));
}

TEST_CASE("graph: a dependency on an unknown op id is rejected", "[graph][errors]") {
  ExecutionGraph g;
  const OpId a = g.add_op("a", 0, 0);
  CHECK_THROWS_WITH(g.add_op("b", 0, 0, {a, 9}), Catch::Contains("'b'") && Catch::Contains("unknown op id 9"));
  CHECK(g.size() == 1);  // the failed add left nothing behind
  CHECK_THROWS_AS(g.add_dependency(a, 4), GraphError);
  CHECK_THROWS_WITH(g.add_dependency(12, a), Catch::Contains("unknown op id 12"));
}

TEST_CASE("graph: a cycle is rejected with the ops on it, in order", "[graph][errors]") {
  ExecutionGraph g;
  const OpId a = g.add_op("a", 0, kNoStream);
  const OpId b = g.add_op("b", 0, kNoStream, {a});
  const OpId c = g.add_op("c", 0, kNoStream, {b});
  g.add_op("after", 0, kNoStream, {c});  // downstream of the cycle, not on it
  g.add_dependency(c, a);
  CHECK(finalize_error(g) == "cycle in execution graph: a -> b -> c -> a");
  CHECK_FALSE(g.finalized());
  CHECK_THROWS_AS(g.topological_order(), GraphError);
}

TEST_CASE("graph: cycles through stream order and self-dependencies are found", "[graph][errors]") {
  SECTION("stream order against an explicit dependency") {
    ExecutionGraph g;
    g.add_op("root", 0, kNoStream);
    const OpId first = g.add_op("first", 0, 2);
    const OpId second = g.add_op("second", 0, 2);
    g.add_dependency(second, first);
    CHECK(finalize_error(g) == "cycle in execution graph: first -> second -> first");
  }
  SECTION("an op depending on itself") {
    ExecutionGraph g;
    const OpId x = g.add_op("", 0, kNoStream);
    g.add_dependency(x, x);
    CHECK(finalize_error(g) == "cycle in execution graph: #0 -> #0");
  }
}

TEST_CASE("graph: adjacency needs finalize(), and changes undo it", "[graph][errors]") {
  ExecutionGraph g;
  const OpId a = g.add_op("a", 0, 0);
  CHECK_THROWS_WITH(g.predecessors(a), Catch::Contains("finalize"));
  CHECK_THROWS_AS(g.successors(a), GraphError);
  g.finalize();
  CHECK(g.finalized());
  const OpId b = g.add_op("b", 0, kNoStream);
  CHECK_FALSE(g.finalized());
  g.finalize();
  g.add_dependency(a, b);
  CHECK_FALSE(g.finalized());
  g.finalize();
  CHECK(to_vector(g.predecessors(b)) == std::vector<OpId>{a});
  CHECK_THROWS_AS(g.predecessors(99), GraphError);
}

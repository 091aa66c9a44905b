// The time-independent trace reader: sizes in bytes by datatype, and file:line:column errors for
// malformed lines, unknown actions, ranks outside the world and rank-count mismatches.
#include <catch2/catch.hpp>

#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {
namespace {

std::string error_of(const std::string& text, std::optional<int> ranks = std::nullopt) {
  try {
    parse_ti_trace(text, "t.txt", ranks);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("trace actions read into bytes by SimGrid's default and explicit datatypes") {
  const TiTrace t = parse_ti_trace(
      "0 init\n1 init 1\n0 send 1 7 1e6\n1 recv 0 7 1e6\n0 bcast 10\n1 bcast 10\n0 bcast 10 0 1\n1 bcast 10 0 1\n"
      "0 allreduce 4 5e8\n1 allreduce 4 5e8\n# a comment\n\n0 finalize\n1 finalize\n",
      "t.txt");
  REQUIRE(t.ranks == 2);
  REQUIRE(t.actions[0].size() == 6);
  CHECK(t.actions[0][1].kind == TiKind::send);
  CHECK(t.actions[0][1].peer == 1);
  CHECK(t.actions[0][1].tag == 7);
  CHECK(t.actions[0][1].bytes == 1e6);
  CHECK(t.actions[1][1].bytes == 8e6);    // "init 1": MPI_DOUBLE by default
  CHECK(t.actions[0][2].bytes == 10);     // MPI_BYTE by default
  CHECK(t.actions[1][2].bytes == 80);
  CHECK(t.actions[0][3].bytes == 40);     // datatype 1: MPI_INT
  CHECK(t.actions[0][4].compute == 5e8);
  CHECK(t.actions[0][4].line == 9);
}

TEST_CASE("v collectives read one count per rank") {
  const TiTrace t = parse_ti_trace("0 alltoallv 100 1 40 30 1000 1 80 100\n1 init\n2 init\n", "t.txt");
  const TiAction& a = t.actions[0][0];
  REQUIRE(a.counts != kNoCounts);
  CHECK(t.counts[a.counts + 1] == 40);
  CHECK(t.counts[a.recv_counts + 2] == 100);
}

TEST_CASE("malformed trace lines are file:line:column errors") {
  CHECK(error_of("0 init\n0 compute\n") == "t.txt:2:10: compute: missing FLOPs");
  CHECK(error_of("0 compute x12\n") == "t.txt:1:11: compute: FLOPs must be a number, got 'x12'");
  CHECK(error_of("0 compute -5\n") == "t.txt:1:11: compute: FLOPs must be >= 0, got '-5'");
  CHECK(error_of("0 init\n1 frobnicate 3\n").rfind("t.txt:2:3: unknown action 'frobnicate' (known: init,", 0) == 0);
  CHECK(error_of("0 send 5 0 10\n1 init\n") == "t.txt:1:8: send: destination rank must be a whole number in [0, 1], got '5'");
  CHECK(error_of("x init\n") == "t.txt:1:1: expected a rank number first, got 'x'");
  CHECK(error_of("0 compute 1 2\n") == "t.txt:1:13: compute: unexpected argument '2'");
  CHECK(error_of("0 bcast 10 0 99\n") == "t.txt:1:14: bcast: unknown datatype id 99 (SimGrid ids 0-13)");
  CHECK(error_of("0 alltoallv 1 1 1\n1 init\n") == "t.txt:1:18: alltoallv: missing receive buffer size");
}

TEST_CASE("a rank count that does not match the trace is an error") {
  CHECK(error_of("0 init\n1 init\n", 3) == "t.txt:1:1: the trace names 2 ranks, but 3 were asked for (--np)");
  CHECK(error_of("", std::nullopt) == "t.txt: the trace has no action");
}

TEST_CASE("trace ranks and actions go through the count limits (--limit ranks=N, actions=N)") {
  set_count_limit("ranks=4");
  CHECK(error_of("0 init\n1 init\n7 init\n") ==
        "t.txt:3:1: the trace (rank 7) needs 8 MPI ranks; hpcsim simulates at most 4 (raise it with --limit ranks=N)");
  CHECK(error_of("0 comm_size 5\n").find("t.txt:1:") == 0);
  set_count_limit("ranks=131072");
  CHECK(error_of("0 init\n1 init\n7 init\n") == "no error");
  set_count_limit("actions=3");
  CHECK(error_of("0 init\n1 init\n0 compute 5\n1 compute 5\n") ==
        "t.txt:4:1: the trace needs 4 trace actions; hpcsim simulates at most 3 (raise it with --limit actions=N)");
  set_count_limit("actions=20000000");
  CHECK(error_of("0 init\n1 init\n0 compute 5\n1 compute 5\n") == "no error");
}

}  // namespace
}  // namespace hpcsim

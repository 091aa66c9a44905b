// SimGrid's own replay tests (tests/data/simgrid-ti/replay/replay.tesh, LGPL, data only) replayed on the
// platform they record: the simulated time and each rank's end within 2 % of SimGrid's.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/mpi/simgrid_platform.h"
#include "workloads/mpi_replay/ti_replay.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {
namespace {

const std::string kDir = std::string(HPCSIM_TEST_DATA_DIR) + "/simgrid-ti";

struct TeshCase {
  std::vector<std::string> files;  // one trace for all ranks, or one per rank
  int ranks = 0;
  double time = 0;
  std::map<int, double> rank_end;  // the last time each rank logs
};

// Each smpirun block of replay.tesh: its "< file" inputs, -np, the logged action times and the total.
std::vector<TeshCase> tesh_cases() {
  std::ifstream in(kDir + "/replay/replay.tesh");
  REQUIRE(in);
  std::vector<TeshCase> cases;
  TeshCase c;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("< ", 0) == 0) {
      c.files.push_back(line.substr(2));
    } else if (line.rfind("$ ", 0) == 0 && line.find("smpirun") != std::string::npos) {
      const std::size_t np = line.find("-np ");
      c.ranks = std::stoi(line.substr(np + 4));
    } else if (line.rfind("> [", 0) == 0 && line.find("smpi_replay/") != std::string::npos) {
      // "> [Host:rank:(pid) time] ..."
      const std::size_t c1 = line.find(':'), c2 = line.find(':', c1 + 1), sp = line.find(") ", c2), br = line.find(']', sp);
      const int rank = std::stoi(line.substr(c1 + 1, c2 - c1 - 1));
      const double t = std::stod(line.substr(sp + 2, br - sp - 2));
      c.rank_end[rank] = std::max(c.rank_end[rank], t);
      if (const std::size_t s = line.find("Simulation time "); s != std::string::npos) {
        c.time = std::stod(line.substr(s + 16));
        bool seen = false;
        for (const TeshCase& o : cases) seen = seen || o.files == c.files;
        if (!seen) cases.push_back(c);
        c = TeshCase{};
      }
    } else if (line.rfind("$ rm", 0) == 0) {
      c = TeshCase{};
    }
  }
  return cases;
}

ReplayResult replay(const TiTrace& trace) {
  SimgridMachine machine(read_simgrid_platform(kDir + "/small_platform.xml"));
  ReplayOptions o;
  o.model = smpi_message_model();
  std::ifstream hf(kDir + "/hostfile");
  std::vector<int> hosts;
  std::string h;
  while (hf >> h) hosts.push_back(machine.platform().host_index(h));
  for (int r = 0; r < trace.ranks; ++r) o.rank_host.push_back(hosts[r % hosts.size()]);
  return replay_ti_trace(trace, machine, o);
}

TEST_CASE("every SimGrid replay test ends within 2 % of SimGrid's simulated time") {
  const std::vector<TeshCase> cases = tesh_cases();
  REQUIRE(cases.size() >= 9);
  for (const TeshCase& c : cases) {
    TiTrace trace;
    if (c.files.size() == 1) {
      trace = read_ti_trace(kDir + "/" + c.files[0], c.ranks);
    } else {
      const std::string desc = kDir + "/split_traces";
      trace = read_ti_trace(desc, c.ranks);
      REQUIRE(trace.files.size() == c.files.size());
    }
    const ReplayResult r = replay(trace);
    INFO(c.files[0] << ": hpcsim " << r.time_s << " s, SimGrid " << c.time << " s");
    CHECK(std::abs(r.time_s - c.time) <= 0.02 * c.time);
    for (const auto& [rank, end] : c.rank_end) {
      INFO("rank " << rank << " ends at " << r.ranks[rank].end_s << " s, SimGrid " << end << " s");
      CHECK(std::abs(r.ranks[rank].end_s - end) <= 0.02 * end + 1e-5);
    }
  }
}

TEST_CASE("the 3-host bcast/compute/reduce trace: 19.692506 s in SimGrid") {
  const ReplayResult r = replay(read_ti_trace(kDir + "/replay/actions_bcast.txt"));
  CHECK(r.time_s == Approx(19.692506).epsilon(0.02));
  // Its parts: rank 2 (Fafard, 76.296 Mflop/s) computes 2 x 5e8 + 5e8 FLOPs.
  CHECK(r.ranks[2].compute_s == Approx(1.5e9 / 76.296e6).epsilon(1e-9));
  CHECK(r.ranks[0].waiting_s > 0);  // the root waits for rank 2's contribution to the reduce
}

TEST_CASE("the 32-rank NPB-like traces replay (one file per rank) and every action runs") {
  const TiTrace trace = read_ti_trace(kDir + "/smpi_replay.txt");
  REQUIRE(trace.ranks == 32);
  const ReplayResult r = replay(trace);
  CHECK(r.actions == trace.total_actions());
  CHECK(r.time_s > 0);
  CHECK(r.messages > 0);
}

}  // namespace
}  // namespace hpcsim

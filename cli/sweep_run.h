#pragma once
// What `hpcsim sweep`'s one-machine runner (cmd_sweep.cpp) and its MPI runner (sweep_mpi.cpp) share on the
// command line's side: the flags, the plan built from them and the results printed; the work is
// driver/sweep.h's.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/sweep.h"

namespace hpcsim::cli {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> vary;
  std::string db = "results.db";
  int jobs = 1;
  std::string format = "table";
};

// The flags' plan (driver/sweep.h's plan_sweep with the shipped specs).
SweepPlan sweep_plan(const SweepOptions& o);

// The study's points as stored (table or JSON) on stdout; StoreError when the store cannot be read.
void print_sweep_results(const SweepOptions& o, const SweepPlan& plan);

// Claims and runs the study's points in this process until none is left to claim (driver/sweep.h's
// run_sweep_points); false, with the reason on stderr, when the store failed.
bool run_points(const SweepOptions& o, const SweepPlan& plan, const std::function<void()>& after_each = {});

// The study's points done (stored ok or not) and not ok, as the store has them now. StoreError.
struct PointCounts {
  std::size_t done = 0, failed = 0;
};
PointCounts count_points(const std::string& db, std::int64_t study_id);

// Waits for the points another live sweep of this study claimed, so that the table this one prints is whole
// (a note on stderr says so); a point whose claimer is gone meanwhile (killed) is taken over and run here.
// False when the store failed.
bool wait_for_other_sweeps(const SweepOptions& o, const SweepPlan& plan);

// Under mpirun with more than one rank: the ranks share the pending points and rank 0 stores them all.
bool launched_by_mpirun();
int run_sweep_mpi(const SweepOptions& o);

}  // namespace hpcsim::cli

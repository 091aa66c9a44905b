#pragma once
// What `hpcsim sweep`'s one-machine runner (cmd_sweep.cpp) and its MPI runner (sweep_mpi.cpp) share on the
// command line's side: the flags, the plan built from them and the results printed; the work is
// driver/sweep.h's.
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

// Under mpirun with more than one rank: the ranks share the pending points and rank 0 stores them all.
bool launched_by_mpirun();
int run_sweep_mpi(const SweepOptions& o);

}  // namespace hpcsim::cli

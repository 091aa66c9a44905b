#pragma once
// The parts of `hpcsim sweep` its one-machine runner (cmd_sweep.cpp) and its MPI runner (sweep_mpi.cpp)
// share: the plan (the study and the points still pending), running one point, storing it, the results.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/prediction_interval.h"
#include "analysis/results_store.h"
#include "analysis/study.h"
#include "configs/catalog.h"

namespace hpcsim::cli {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> vary;
  std::string db = "results.db";
  int jobs = 1;
  std::string format = "table";
};

struct SweepPlan {
  std::string name;
  Study study;
  std::int64_t study_id = 0;
  std::vector<std::size_t> pending;  // point indices still to run, in order
  std::size_t already_stored = 0;    // points complete before this run
};

// The study of the flags' cross product (ConfigError for a bad scenario or a key no value of its axis can
// set, std::invalid_argument for a malformed --vary). Store-free: every MPI rank builds the same one.
SweepPlan sweep_plan(const SweepOptions& o);
// Finds the study in the store (a restart) or records it, and fills study_id, pending and already_stored.
void open_study(const SweepOptions& o, SweepPlan& plan, ResultsStore& store);

// Point `index` simulated: its run record (an invalid point's says why).
RunRecord simulate_point(const SweepOptions& o, const SweepPlan& plan, std::size_t index, const SpecCatalog& catalog,
                         const IntervalTable& intervals);
// Stores point `index`: linked to a stored ok run of the same resolved scenario when there is one, else
// with `record`.
void store_point(ResultsStore& store, const SweepPlan& plan, std::size_t index, const RunRecord& record);

// The study's points as stored (table or JSON).
void print_sweep_results(const SweepOptions& o, const SweepPlan& plan);

// Under mpirun with more than one rank: the ranks share the pending points and rank 0 stores them all.
bool launched_by_mpirun();
int run_sweep_mpi(const SweepOptions& o);

}  // namespace hpcsim::cli

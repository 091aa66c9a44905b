#pragma once
// What `hpcsim sweep` prints once its points are stored: one row per point (its values, status, step time,
// throughput and memory per GPU; an endpoint's p99 and p50 latency, request rate, cost and drops; an MPI
// application's time, GFLOP/s and the share of exposed communication) as a table, or the points with every metric as JSON (a contract:
// {"study_id", "points": [{"index", "values", "status", "run_id", "message", "metrics"}], "summary"}).
#include <cstddef>
#include <cstdint>
#include <string>

#include "store/results_store.h"
#include "store/study.h"

namespace hpcsim {

struct SweepResultsView {
  const Study& study;
  std::int64_t study_id = 0;
  std::size_t already_stored = 0;  // points complete before this run
  std::string db;                  // the store's file, named in the table's summary line
};

// Both read the study's points and their runs from `store`; StoreError when it cannot be read.
std::string sweep_results_table(const ResultsStore& store, const SweepResultsView& view);
std::string sweep_results_json(const ResultsStore& store, const SweepResultsView& view);

}  // namespace hpcsim

#pragma once
// What `hpcsim report` plots of MPI trace replays (kind: replay runs): where the time of each replay went, the
// mean rank's compute, communication and waiting, and, where the replay followed it (--critical-path), the
// critical path's compute, communication and other time. Rendering is report_csv.h's and
// scripts/report_figures.py's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/results_store.h"

namespace hpcsim {

struct ReplayTimeBar {
  std::int64_t run_id = 0;
  std::string label;    // the replay keys that tell the bars apart ("ompi, allreduce=ring"), or "run N"
  double time_s = 0.0;  // simulated time of the replay (the last rank's end)
  double ranks = 0.0;
  double compute_s = 0.0, communication_s = 0.0, waiting_s = 0.0;  // the mean rank's
  struct Path {
    double compute_s = 0.0, communication_s = 0.0, other_s = 0.0;
  };
  std::optional<Path> critical_path;  // empty where the replay did not follow it
};

struct ReplayTimeFigure {
  std::string label_keys;  // the keys the labels give values of (", " between them); empty: labels are run ids
  std::vector<ReplayTimeBar> bars;
};

// The latest ok replay runs (at most 12; a replay's stored metrics time_s, mean_rank.*_s and critical_path.*_s),
// in run order. Empty when the store holds none.
ReplayTimeFigure replay_time_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics);

}  // namespace hpcsim

#pragma once
// What `hpcsim report` plots of MPI applications (kind: mpi runs): time to solution and parallel efficiency
// against node count, one line per network (or whatever else tells the lines apart), strong or weak scaling.
// Rendering is report_csv.h's and scripts/report_figures.py's; this is only which runs and numbers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/results_store.h"

namespace hpcsim {

// One node count on a line: the latest ok mpi run of that line at that count.
struct AppScalingPoint {
  std::int64_t run_id = 0;
  double nodes = 0.0;
  double time_s = 0.0;
  std::optional<double> gflops;      // the application's FP64 rate, where it reports one above 0
  std::optional<double> efficiency;  // GFLOP/s per node over that at the line's smallest node count
};

// Runs whose scenarios differ only in cluster.nodes and in the keys that follow it (mpi.ranks, HPL's
// workload.p and workload.q) and the problem size (workload.n, workload.grid, workload.class). Where one node
// count was run at several sizes, each size is a line of its own.
struct AppScalingLine {
  std::string label;  // the values that tell this line from the others, e.g. "ib-hdr"
  // "strong" (the same work at every node count), "weak" (the same work per node), "size varies" (neither:
  // HPL with N from each count's memory), from the work each run did (GFLOP/s x time, equal within 5 %), or
  // "unknown" (a point without a rate).
  std::string scaling;
  std::string app;    // workload.app
  std::vector<AppScalingPoint> points;
};

struct AppScalingFigure {
  std::string legend_title;  // the keys the labels give values of
  std::vector<AppScalingLine> lines;
};

// The lines among `runs` (metrics[i] are runs[i]'s): ok runs of kind "mpi" whose scenario text parses and
// that have time_s and placement.nodes; lines with fewer than two node counts are left out. Lines in order of
// their first run. Efficiency is a rate per node, so it reads as strong-scaling efficiency when the work is
// fixed and as weak-scaling efficiency when the work per node is: empty on a line where a point has no rate.
AppScalingFigure app_scaling_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics);

}  // namespace hpcsim

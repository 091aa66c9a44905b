#pragma once
// What `hpcsim report` plots of serving endpoints (kind: serve runs): p99 and p50 latency against the offered
// request rate, one line per configuration. Rendering is report_csv.h's and scripts/report_figures.py's.
#include <cstdint>
#include <string>
#include <vector>

#include "store/results_store.h"

namespace hpcsim {

struct ServeLoadPoint {
  std::int64_t run_id = 0;
  double rate_rps = 0.0;        // offered (the arrival process's mean rate)
  double p50_s = 0.0, p99_s = 0.0;
  double throughput_rps = 0.0;  // served
  double dropped = 0.0;
};

// One endpoint configuration's latency-vs-load curve: the rates of one `hpcsim serve --sweep-load` run, or ok
// serve runs whose scenarios differ only in serving.rate_rps (a sweep of it), at each rate the latest run.
struct ServeLoadLine {
  std::string label;
  std::vector<ServeLoadPoint> points;  // by rate
};

struct ServeLoadFigure {
  std::string legend_title;  // the keys the labels give values of
  std::vector<ServeLoadLine> lines;
};

// Lines with fewer than two rates are left out; lines in order of their first run.
ServeLoadFigure serve_load_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics);

}  // namespace hpcsim

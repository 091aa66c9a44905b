#pragma once
// What `hpcsim report` plots, read from a results store: the scaling lines (throughput and scaling
// efficiency against GPU count; MPI applications' time and efficiency against node count, app_scaling_data.h), where trace replays' time went (replay_time_data.h), the step-time breakdown bars, a plan's Pareto front, the checkpoint-interval trade-off and the table of runs.
// Rendering lives elsewhere (report_csv.h for the CSV behind each figure, scripts/report_figures.py for the
// PNGs, report_html.h for the page); this is only the choice of which runs and numbers go where.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/app_scaling_data.h"
#include "report/replay_time_data.h"
#include "report/serve_load_data.h"
#include "store/results_store.h"

namespace hpcsim {

// One GPU count on a scaling line: the latest ok training run of that line at that count.
struct ScalingLinePoint {
  std::int64_t run_id = 0;
  double gpus = 0.0;
  double samples_per_s = 0.0;
  std::optional<double> tokens_per_s;  // empty for models without sequences
  double scaling_efficiency = 1.0;     // throughput per GPU over that of the line's smallest GPU count
};

// Training runs whose scenarios differ only in their GPU count (cluster.nodes, cluster.gpus_per_node,
// parallelism.dp), by GPU count; lines with fewer than two GPU counts are not scaling lines.
struct ScalingLine {
  std::string label;  // the values that tell this line from the others, e.g. "ib-hdr"
  std::vector<ScalingLinePoint> points;
};

struct ScalingFigure {
  std::string legend_title;  // the keys the labels give values of, e.g. "cluster.network"
  std::vector<ScalingLine> lines;
};

// The step-time components of one training run, in seconds (the breakdown_s.* metrics).
struct BreakdownBar {
  std::int64_t run_id = 0;
  std::string label;  // the study point's values ("network=ib-hdr, nodes=8") or "run N"
  double step_time_s = 0.0;
  double compute_s = 0.0, communication_exposed_s = 0.0, optimizer_s = 0.0, pipeline_bubble_s = 0.0,
         io_stall_s = 0.0, other_s = 0.0;
};

struct BreakdownFigure {
  std::string source;  // what the bars are, e.g. "study 2: quickstart sweep ..."
  std::vector<BreakdownBar> bars;
};

// One configuration on a plan's Pareto front.
struct ParetoRow {
  std::int64_t run_id = 0;
  double time_to_train_s = 0.0;
  double cost_usd = 0.0;
  std::optional<double> energy_kwh;  // empty where the plan has no power model for it
  // What the configuration is, to label its point: "128 x dgx-h100, ib-ndr, tp 8 pp 8 dp 16" (the parts
  // the stored metrics and plan text give).
  std::string label;
};

// One checkpoint interval of a training run with a `resilience:` section (docs/resilience.md): its
// resilience.* metrics, in seconds.
struct IntervalPoint {
  std::int64_t run_id = 0;
  double interval_s = 0.0;
  double time_to_train_s = 0.0, p5_s = 0.0, p95_s = 0.0;  // mean and nearest-rank percentiles over replicas
  double ettr = 0.0;
  double lost_checkpoint_s = 0.0, lost_recompute_s = 0.0;
};

// The checkpoint-interval trade-off: ok training runs with resilience metrics whose scenarios differ only in
// resilience.checkpoint.interval (absent: Daly's), by interval; the group with the most intervals (the latest
// on a tie), at each interval the latest run. Empty when no two such runs differ in their interval.
struct IntervalFigure {
  std::string label;  // the scenario's name
  double young_s = 0.0, daly_s = 0.0;  // Young's and Daly's optima (the latest point's)
  std::vector<IntervalPoint> points;
};

// One line of the runs table: every run of every kind.
struct RunRow {
  StoredRun run;
  std::optional<double> gpus, step_time_s, samples_per_s;
  // The study points the run is linked to ("study 1: network=ib-hdr, nodes=8"; "; " between several), so a
  // sweep's runs are told apart even where their names are alike; empty for a run of no study.
  std::string study_point;
};

struct ReportData {
  ScalingFigure scaling;
  AppScalingFigure app_scaling;  // MPI applications (kind: mpi) against node count
  ServeLoadFigure serve_load;    // serving endpoints' latency against the offered rate
  ReplayTimeFigure replay_time;  // MPI trace replays: where the mean rank's (and the critical path's) time went
  BreakdownFigure breakdown;
  std::vector<ParetoRow> pareto;
  IntervalFigure interval;
  std::vector<RunRow> runs;
};

// Reads every figure's data from the store; runs are read once. Throws StoreError.
ReportData collect_report_data(const ResultsStore& store);

// The scaling lines among `runs` (metrics[i] are runs[i]'s): only ok training runs whose scenario text
// parses and that have the gpus and throughput.samples_per_s metrics count. Lines in order of their first run.
ScalingFigure scaling_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics);

IntervalFigure interval_figure(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics);

// The Pareto front of the latest ok run of kind "plan" (`hpcsim plan`), from its metrics
// "pareto.time_to_train_s[i]", "pareto.cost_usd[i]" and "pareto.energy_kwh[i]" (analysis/plan_report.h).
std::vector<ParetoRow> pareto_rows(const std::vector<StoredRun>& runs, const std::vector<std::vector<Metric>>& metrics);

}  // namespace hpcsim

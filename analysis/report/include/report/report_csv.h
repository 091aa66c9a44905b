#pragma once
// The CSV behind each figure of `hpcsim report` (and the runs table): what scripts/report_figures.py plots
// and what a paper's reader can re-plot. RFC 4180 quoting; numbers in their shortest form that reads back
// as the same double, so the CSVs hold exactly the stored values; an empty cell is a missing value.
#include <string>
#include <string_view>

#include "report/report_data.h"

namespace hpcsim {

// line,line_keys,gpus,run_id,samples_per_s,tokens_per_s,scaling_efficiency: one row per point, lines in
// order; line_keys (the legend's title) repeats on every row so the file stands alone.
std::string scaling_csv(const ScalingFigure& figure);

// line,line_keys,app,scaling,nodes,run_id,time_s,gflops,efficiency: one row per point, lines in order
// (scaling: strong, weak, size varies or unknown; gflops and efficiency empty where missing).
std::string app_scaling_csv(const AppScalingFigure& figure);

// line,line_keys,rate_rps,run_id,p50_s,p99_s,throughput_rps,dropped: one row per rate, lines in order.
std::string serve_load_csv(const ServeLoadFigure& figure);

// run_id,label,label_keys,time_s,ranks,compute_s,communication_s,waiting_s (the mean rank's),
// path_compute_s,path_communication_s,path_other_s (empty where the replay did not follow its critical path).
std::string replay_time_csv(const ReplayTimeFigure& figure);

// run_id,label,step_time_s,compute_s,communication_exposed_s,optimizer_s,pipeline_bubble_s,io_stall_s,other_s
std::string breakdown_csv(const BreakdownFigure& figure);

// run_id,time_to_train_s,cost_usd,energy_kwh
std::string pareto_csv(const std::vector<ParetoRow>& rows);

// run_id,label,interval_s,time_to_train_s,p5_s,p95_s,ettr,lost_checkpoint_s,lost_recompute_s,young_s,daly_s:
// one row per interval; label, young_s and daly_s repeat on every row so the file stands alone.
std::string interval_csv(const IntervalFigure& figure);

// id,started_at,scenario,kind,status,gpus,step_time_s,samples_per_s,wall_s,scenario_hash,message
std::string runs_csv(const std::vector<RunRow>& rows);

// A field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, quote or line break.
std::string csv_field(std::string_view text);
// The shortest decimal that reads back as `value` ("0.1", "1e+21").
std::string csv_number(double value);

}  // namespace hpcsim

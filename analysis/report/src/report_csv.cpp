#include "report/report_csv.h"

#include <charconv>
#include <initializer_list>

namespace hpcsim {

namespace {

std::string optional_number(const std::optional<double>& value) { return value ? csv_number(*value) : ""; }

std::string row(std::initializer_list<std::string> cells) {
  std::string out;
  for (const std::string& c : cells) out += (out.empty() ? "" : ",") + c;
  return out + "\n";
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(double value) {
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, result.ptr);
}

std::string scaling_csv(const ScalingFigure& figure) {
  std::string out = "line,line_keys,gpus,run_id,samples_per_s,tokens_per_s,scaling_efficiency\n";
  for (const ScalingLine& line : figure.lines)
    for (const ScalingLinePoint& p : line.points)
      out += row({csv_field(line.label), csv_field(figure.legend_title), csv_number(p.gpus), std::to_string(p.run_id),
                  csv_number(p.samples_per_s), optional_number(p.tokens_per_s), csv_number(p.scaling_efficiency)});
  return out;
}

std::string app_scaling_csv(const AppScalingFigure& figure) {
  std::string out = "line,line_keys,app,scaling,nodes,run_id,time_s,gflops,efficiency\n";
  for (const AppScalingLine& line : figure.lines)
    for (const AppScalingPoint& p : line.points)
      out += row({csv_field(line.label), csv_field(figure.legend_title), csv_field(line.app), csv_field(line.scaling),
                  csv_number(p.nodes), std::to_string(p.run_id), csv_number(p.time_s), optional_number(p.gflops),
                  optional_number(p.efficiency)});
  return out;
}

std::string serve_load_csv(const ServeLoadFigure& figure) {
  std::string out = "line,line_keys,rate_rps,run_id,p50_s,p99_s,throughput_rps,dropped\n";
  for (const ServeLoadLine& line : figure.lines)
    for (const ServeLoadPoint& p : line.points)
      out += row({csv_field(line.label), csv_field(figure.legend_title), csv_number(p.rate_rps), std::to_string(p.run_id),
                  csv_number(p.p50_s), csv_number(p.p99_s), csv_number(p.throughput_rps), csv_number(p.dropped)});
  return out;
}

std::string replay_time_csv(const ReplayTimeFigure& figure) {
  std::string out =
      "run_id,label,label_keys,time_s,ranks,compute_s,communication_s,waiting_s,path_compute_s,path_communication_s,"
      "path_other_s\n";
  for (const ReplayTimeBar& b : figure.bars) {
    const auto& p = b.critical_path;
    out += row({std::to_string(b.run_id), csv_field(b.label), csv_field(figure.label_keys), csv_number(b.time_s),
                csv_number(b.ranks), csv_number(b.compute_s), csv_number(b.communication_s), csv_number(b.waiting_s),
                p ? csv_number(p->compute_s) : "", p ? csv_number(p->communication_s) : "", p ? csv_number(p->other_s) : ""});
  }
  return out;
}

std::string breakdown_csv(const BreakdownFigure& figure) {
  std::string out =
      "run_id,label,step_time_s,compute_s,communication_exposed_s,optimizer_s,pipeline_bubble_s,io_stall_s,other_s\n";
  for (const BreakdownBar& b : figure.bars)
    out += row({std::to_string(b.run_id), csv_field(b.label), csv_number(b.step_time_s), csv_number(b.compute_s),
                csv_number(b.communication_exposed_s), csv_number(b.optimizer_s), csv_number(b.pipeline_bubble_s),
                csv_number(b.io_stall_s), csv_number(b.other_s)});
  return out;
}

std::string pareto_csv(const std::vector<ParetoRow>& rows) {
  std::string out = "run_id,time_to_train_s,cost_usd,energy_kwh,label\n";
  for (const ParetoRow& r : rows)
    out += row({std::to_string(r.run_id), csv_number(r.time_to_train_s), csv_number(r.cost_usd),
                optional_number(r.energy_kwh), csv_field(r.label)});
  return out;
}

std::string interval_csv(const IntervalFigure& figure) {
  std::string out =
      "run_id,label,interval_s,time_to_train_s,p5_s,p95_s,ettr,lost_checkpoint_s,lost_recompute_s,young_s,daly_s\n";
  for (const IntervalPoint& p : figure.points)
    out += row({std::to_string(p.run_id), csv_field(figure.label), csv_number(p.interval_s), csv_number(p.time_to_train_s),
                csv_number(p.p5_s), csv_number(p.p95_s), csv_number(p.ettr), csv_number(p.lost_checkpoint_s),
                csv_number(p.lost_recompute_s), csv_number(figure.young_s), csv_number(figure.daly_s)});
  return out;
}

std::string runs_csv(const std::vector<RunRow>& rows) {
  std::string out =
      "id,started_at,scenario,kind,status,gpus,step_time_s,samples_per_s,wall_s,scenario_hash,message,study_point\n";
  for (const RunRow& r : rows)
    out += row({std::to_string(r.run.id), csv_field(r.run.started_at), csv_field(r.run.scenario_name),
                csv_field(r.run.kind), csv_field(r.run.status), optional_number(r.gpus), optional_number(r.step_time_s),
                optional_number(r.samples_per_s), csv_number(r.run.wall_s), csv_field(r.run.scenario_hash),
                csv_field(r.run.message), csv_field(r.study_point)});
  return out;
}

}  // namespace hpcsim

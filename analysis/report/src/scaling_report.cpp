#include "report/scaling_report.h"

#include <cstdio>

#include "configs/json_writer.h"

namespace hpcsim {

namespace {

std::string num(double v) { return json::number(v, 10); }

std::string fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::vector<ScalingRow> scaling_rows(const std::vector<ScalingPoint>& points) {
  std::vector<ScalingRow> rows;
  for (const ScalingPoint& p : points) {
    ScalingRow row;
    row.gpus = p.gpus, row.nodes = p.nodes;
    row.step_time_s = p.result.step_time_s;
    row.samples_per_s = p.result.samples_per_s;
    row.tokens_per_s = p.result.tokens_per_s;
    row.interval = p.interval;
    if (!rows.empty() && rows.front().samples_per_s > 0) {
      const ScalingRow& first = rows.front();
      row.speedup = row.samples_per_s / first.samples_per_s;
      row.efficiency = row.speedup / (static_cast<double>(row.gpus) / first.gpus);
    }
    rows.push_back(row);
  }
  return rows;
}

std::string scaling_to_table(const std::string& scenario, const std::vector<ScalingRow>& rows) {
  bool tokens = false;
  for (const ScalingRow& r : rows) tokens = tokens || r.tokens_per_s.has_value();
  std::string out = "scaling: " + scenario + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%6s %6s %14s %14s", "gpus", "nodes", "step_time_s", "samples_per_s");
  out += line;
  if (tokens) out += "   tokens_per_s";
  out += "  speedup  efficiency\n";
  for (const ScalingRow& r : rows) {
    std::snprintf(line, sizeof line, "%6d %6d %14.6g %14.1f", r.gpus, r.nodes, r.step_time_s, r.samples_per_s);
    out += line;
    if (tokens) {
      if (r.tokens_per_s) {
        std::snprintf(line, sizeof line, " %14.0f", *r.tokens_per_s);
      } else {
        std::snprintf(line, sizeof line, " %14s", "n/a");
      }
      out += line;
    }
    std::snprintf(line, sizeof line, " %8s %11s\n", fixed(r.speedup, 2).c_str(), fixed(r.efficiency, 3).c_str());
    out += line;
  }
  return out;
}

std::string scaling_to_json(const std::vector<ScalingRow>& rows) {
  std::string out = "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ScalingRow& r = rows[i];
    out += i == 0 ? "\n" : ",\n";
    out += "  {\"gpus\": " + std::to_string(r.gpus) + ", \"nodes\": " + std::to_string(r.nodes) +
           ", \"step_time_s\": " + num(r.step_time_s) + ", \"samples_per_s\": " + num(r.samples_per_s) +
           ", \"tokens_per_s\": " + (r.tokens_per_s ? num(*r.tokens_per_s) : std::string("null")) +
           ", \"step_time_interval_s\": " +
           (r.interval ? std::string("[").append(num(r.interval->low_s)).append(", ").append(num(r.interval->high_s)).append("]")
                       : std::string("null")) +
           ", \"speedup\": " + num(r.speedup) + ", \"efficiency\": " + num(r.efficiency) + "}";
  }
  return out + "\n]\n";
}

std::string scaling_to_csv(const std::vector<ScalingRow>& rows) {
  std::string out = "gpus,nodes,step_time_s,samples_per_s,tokens_per_s,speedup,efficiency\n";
  for (const ScalingRow& r : rows) {
    out += std::to_string(r.gpus) + "," + std::to_string(r.nodes) + "," + num(r.step_time_s) + "," +
           num(r.samples_per_s) + "," + (r.tokens_per_s ? num(*r.tokens_per_s) : std::string()) + "," +
           num(r.speedup) + "," + num(r.efficiency) + "\n";
  }
  return out;
}

}  // namespace hpcsim

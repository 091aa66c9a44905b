#include "report/show_results.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace hpcsim {

namespace {

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

enum class Align { Left, Right };
struct Column {
  std::string header;
  Align align;
};

// Lays rows out under `columns`, each as wide as its widest cell, two spaces apart.
// Lines carry no trailing blanks so the output diffs cleanly.
class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {
    for (const Column& c : columns_) widths_.push_back(c.header.size());
  }
  void widen(const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size() && i < widths_.size(); ++i)
      widths_[i] = std::max(widths_[i], cells[i].size());
  }
  std::string header(const std::string& indent) const {
    std::vector<std::string> cells;
    for (const Column& c : columns_) cells.push_back(c.header);
    return line(indent, cells);
  }
  std::string line(const std::string& indent, const std::vector<std::string>& cells) const {
    std::string out = indent;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::size_t pad = i < widths_.size() ? widths_[i] - std::min(widths_[i], cells[i].size()) : 0;
      const bool right = i < columns_.size() && columns_[i].align == Align::Right;
      if (i > 0) out += "  ";
      if (right) out.append(pad, ' ');
      out += cells[i];
      if (!right) out.append(pad, ' ');
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  }

 private:
  std::vector<Column> columns_;
  std::vector<std::size_t> widths_;
};

std::vector<std::string> run_cells(const StoredRun& r) {
  return {std::to_string(r.id), r.started_at, r.scenario_name, r.kind, r.scenario_hash, r.status,
          format_number(r.wall_s), r.message};
}

std::vector<std::string> metric_cells(const Metric& m) {
  return {m.name, m.value ? format_number(*m.value) : "null", m.unit};
}

std::vector<std::string> study_cells(const StoredStudy& s) {
  return {std::to_string(s.id), s.created_at, s.name, s.base_scenario_hash, s.parameters_json};
}

std::vector<std::string> point_cells(const StoredStudyPoint& p) {
  return {std::to_string(p.index), std::string(to_string(p.status)), p.run_id ? std::to_string(*p.run_id) : "-",
          p.values_json};
}

// Each study with its points: status and the run that holds the point's metrics.
std::string format_studies(const ResultsStore& store) {
  const std::vector<StoredStudy> studies = store.studies();
  if (studies.empty()) return {};  // stores without studies print as before studies existed
  std::vector<std::vector<StoredStudyPoint>> points;
  for (const StoredStudy& s : studies) points.push_back(store.study_points(s.id));

  Table study_table({{"study", Align::Right}, {"created_at", Align::Left}, {"name", Align::Left},
                     {"base_hash", Align::Left}, {"parameters", Align::Left}});
  Table point_table({{"point", Align::Right}, {"status", Align::Left}, {"run", Align::Right},
                     {"values", Align::Left}});
  for (std::size_t i = 0; i < studies.size(); ++i) {
    study_table.widen(study_cells(studies[i]));
    for (const StoredStudyPoint& p : points[i]) point_table.widen(point_cells(p));
  }
  const std::string point_indent = "    ";
  std::string out = std::to_string(studies.size()) + (studies.size() == 1 ? " study\n" : " studies\n");
  out += study_table.header("");
  for (std::size_t i = 0; i < studies.size(); ++i) {
    out += study_table.line("", study_cells(studies[i]));
    if (points[i].empty()) continue;
    out += point_table.header(point_indent);
    for (const StoredStudyPoint& p : points[i]) out += point_table.line(point_indent, point_cells(p));
  }
  return out;
}

}  // namespace

std::string format_runs_table(const ResultsStore& store) {
  const std::vector<StoredRun> runs = store.runs();
  std::vector<std::vector<Metric>> metrics;
  for (const StoredRun& r : runs) metrics.push_back(store.report(r).metrics);

  Table run_table({{"id", Align::Right}, {"started_at", Align::Left}, {"scenario", Align::Left},
                   {"kind", Align::Left}, {"hash", Align::Left}, {"status", Align::Left}, {"wall_s", Align::Right},
                   {"message", Align::Left}});
  Table metric_table({{"metric", Align::Left}, {"value", Align::Right}, {"unit", Align::Left}});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    run_table.widen(run_cells(runs[i]));
    for (const Metric& m : metrics[i]) metric_table.widen(metric_cells(m));
  }

  const std::string metric_indent = "    ";
  std::string out = store.path() + ": " + std::to_string(runs.size()) + (runs.size() == 1 ? " run\n" : " runs\n");
  if (runs.empty()) return out + format_studies(store);
  out += run_table.header("");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out += run_table.line("", run_cells(runs[i]));
    if (metrics[i].empty()) continue;
    out += metric_table.header(metric_indent);
    for (const Metric& m : metrics[i]) out += metric_table.line(metric_indent, metric_cells(m));
  }
  return out + format_studies(store);
}

}  // namespace hpcsim

// The device comparison as text, CSV or Markdown, closed by the MAPE, the worst case, the occupancy
// matches and the MAPE per benchmark.
#include <algorithm>
#include <cstdio>
#include <string>

#include "report/device_comparison_report.h"
#include "report_format.h"

namespace hpcsim {

namespace {

using report_format::csv_field;
using report_format::format;
using report_format::percent;
using report_format::value;

std::string case_of(const DeviceMeasurement& m) { return m.benchmark + " " + m.params_text(); }

std::string predicted_text(const DeviceComparisonRow& row) { return row.predicted ? value(*row.predicted) : "-"; }

// The error column: a relative error, "exact"/"MISMATCH" for occupancy, or why there is none.
std::string error_text(const DeviceComparisonRow& row) {
  if (!row.predicted) return row.note;
  if (row.exact) return *row.predicted == row.measured.value ? "exact" : "MISMATCH";
  return percent(row.error, true) + (row.in_mape ? "" : " (not counted)");
}

std::string summary_line(const DeviceComparison& c) {
  std::string s = "measured on " + (c.measured_gpu.empty() ? std::string("an unnamed GPU") : c.measured_gpu) +
                  ", predicted with " + c.gpu_spec + ": ";
  if (c.mape_rows > 0) {
    const DeviceComparisonRow& w = c.rows[c.worst];
    s += "MAPE " + percent(c.mape, false) + " over " + std::to_string(c.mape_rows) + " timed cases; worst " +
         case_of(w.measured) + " " + w.measured.metric + " " + percent(w.error, true);
  } else {
    s += "no timed case the GPU model predicts";
  }
  if (c.occupancy_rows > 0) {
    s += "; occupancy " + std::to_string(c.occupancy_matches) + " of " + std::to_string(c.occupancy_rows) + " exact";
  }
  return s;
}

// "by benchmark: gemm 19.6 % over 15 (worst +57.4 %), copy ...": empty when no row is timed.
std::string class_line(const DeviceComparison& c) {
  std::string s;
  for (const DeviceClassError& e : c.by_benchmark) {
    s += (s.empty() ? "by benchmark: " : ", ") + e.benchmark + " " + percent(e.mape, false) + " over " +
         std::to_string(e.rows) + " (worst " + percent(e.worst, true) + ")";
  }
  return s;
}

// The summary line, then the per-benchmark line when there is one, each between `before` and `after`.
std::string closing_lines(const DeviceComparison& c, const char* before, const char* after) {
  std::string out = std::string(before).append(summary_line(c)).append(after);
  if (const std::string classes = class_line(c); !classes.empty()) out.append(before).append(classes).append(after);
  return out;
}

std::string render_table(const DeviceComparison& c) {
  int width = 4;  // the case column fits the longest case
  for (const DeviceComparisonRow& row : c.rows) width = std::max(width, static_cast<int>(case_of(row.measured).size()));
  std::string out;
  char line[1024];
  const char* fmt = "%-*s %-24s %12s %12s  %s\n";
  std::snprintf(line, sizeof line, fmt, width, "case", "metric", "measured", "predicted", "error");
  out += line;
  for (const DeviceComparisonRow& row : c.rows) {
    std::snprintf(line, sizeof line, fmt, width, case_of(row.measured).c_str(),
                  (row.measured.metric + " [" + row.measured.unit + "]").c_str(), value(row.measured.value).c_str(),
                  predicted_text(row).c_str(), error_text(row).c_str());
    out += line;
  }
  return out + closing_lines(c, "", "\n");
}

std::string render_csv(const DeviceComparison& c) {
  std::string out = "benchmark,params,metric,unit,measured,predicted,error,counted,exact\n";
  for (const DeviceComparisonRow& row : c.rows) {
    const DeviceMeasurement& m = row.measured;
    out += csv_field(m.benchmark) + "," + csv_field(m.params_text()) + "," + csv_field(m.metric) + "," + csv_field(m.unit) +
           "," + format("%.10g", m.value) + "," + (row.predicted ? format("%.10g", *row.predicted) : "") + "," +
           (row.predicted && !row.exact ? format("%.6f", row.error) : "") + "," + (row.in_mape ? "yes" : "no") + "," +
           (row.exact ? (*row.predicted == m.value ? "yes" : "no") : "") + "\n";
  }
  return out + closing_lines(c, "# ", "\n");
}

std::string render_markdown(const DeviceComparison& c) {
  std::string out = "| case | metric | unit | measured | predicted | error |\n|---|---|---|---:|---:|---:|\n";
  for (const DeviceComparisonRow& row : c.rows) {
    out += "| " + case_of(row.measured) + " | " + row.measured.metric + " | " + row.measured.unit + " | " +
           value(row.measured.value) + " | " + predicted_text(row) + " | " + error_text(row) + " |\n";
  }
  return out + closing_lines(c, "\n", ".\n");
}

}  // namespace

std::string render_device_comparison(const DeviceComparison& comparison, ValidationFormat fmt) {
  switch (fmt) {
    case ValidationFormat::csv: return render_csv(comparison);
    case ValidationFormat::markdown: return render_markdown(comparison);
    case ValidationFormat::table: break;
  }
  return render_table(comparison);
}

}  // namespace hpcsim

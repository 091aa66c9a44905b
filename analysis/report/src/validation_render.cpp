// The validation table as text, CSV or Markdown; the summary (MAPE, worst case, cases in band) follows it.
#include <cmath>
#include <cstdio>
#include <string>

#include "report/validation_report.h"
#include "report_format.h"

namespace hpcsim {

namespace {

using report_format::csv_field;
using report_format::format;
using report_format::percent;
using report_format::value;

int in_band(const ValidationReport& r) {
  int n = 0;
  for (const ValidationRow& row : r.rows) n += row.within_band() ? 1 : 0;
  return n;
}

std::string summary_line(const ValidationReport& r) {
  std::string s = "MAPE " + percent(r.mape, false) + " over " + std::to_string(r.rows.size()) + " cases";
  if (r.worst >= 0) {
    const ValidationRow& w = r.rows[r.worst];
    s += "; worst " + w.id + " " + percent(w.error, true);
  }
  s += "; " + std::to_string(in_band(r)) + " of " + std::to_string(r.rows.size()) + " within their band";
  return s;
}

std::string render_table(const ValidationReport& r) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-62s %-38s %12s %12s %10s %6s  %s\n", "case", "metric", "measured", "predicted",
                "error", "band", "");
  out += line;
  for (const ValidationRow& row : r.rows) {
    std::snprintf(line, sizeof line, "%-62s %-38s %12s %12s %10s %6s  %s\n", row.id.c_str(),
                  (row.metric + " [" + row.unit + "]").c_str(), value(row.measured).c_str(),
                  value(row.predicted).c_str(), percent(row.error, true).c_str(), format("%.0f%%", row.band * 100).c_str(),
                  row.within_band() ? "" : "OUT");
    out += line;
  }
  return out + summary_line(r) + "\n";
}

std::string render_csv(const ValidationReport& r) {
  std::string out = "id,kind,metric,unit,measured,predicted,error,band,within_band,trust,source,category,family\n";
  for (const ValidationRow& row : r.rows) {
    out += csv_field(row.id) + "," + row.kind + "," + row.metric + "," + csv_field(row.unit) + "," +
           format("%.10g", row.measured) + "," + format("%.10g", row.predicted) + "," + format("%.6f", row.error) + "," +
           format("%.2f", row.band) + "," + (row.within_band() ? "yes" : "no") + "," + csv_field(row.trust) + "," +
           csv_field(row.source) + "," + row.category + "," + csv_field(row.family) + "\n";
  }
  return out + "# " + summary_line(r) + "\n";
}

std::string render_markdown(const ValidationReport& r) {
  std::string out = "| case | metric | unit | measured | predicted | error | band |\n|---|---|---|---:|---:|---:|---:|\n";
  for (const ValidationRow& row : r.rows) {
    const std::string error = percent(row.error, true);
    out += "| " + row.id + " | " + row.metric + " | " + row.unit + " | " + value(row.measured) + " | " +
           value(row.predicted) + " | " + (row.within_band() ? error : "**" + error + "**") + " | " +
           format("%.0f %%", row.band * 100) + " |\n";
  }
  return out + "\n" + summary_line(r) + ".\n";
}

}  // namespace

std::string render_validation(const ValidationReport& report, ValidationFormat fmt) {
  switch (fmt) {
    case ValidationFormat::csv: return render_csv(report);
    case ValidationFormat::markdown: return render_markdown(report);
    case ValidationFormat::table: break;
  }
  return render_table(report);
}

}  // namespace hpcsim

#include "report/report_render.h"

#include "configs/json_writer.h"
#include "report_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace hpcsim {

namespace {

std::string number(double v, const std::string& unit) {
  return unit == "count" || (unit == "bytes" && std::abs(v) < 9e15) ? json::fixed(v, 0) : json::number(v, 10);
}

std::string json_value(const Metric& m) {
  if (!m.value) return "null";
  if (m.unit == "bool") return *m.value != 0 ? "true" : "false";
  return number(*m.value, m.unit);
}


std::vector<std::string> split_dots(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1) {
    parts.push_back(name.substr(start, dot - start));
  }
  parts.push_back(name.substr(start));
  return parts;
}

std::string human(const Metric& m) {
  if (!m.value) return "n/a";
  const double v = *m.value;
  char buf[64];
  if (m.unit == "bool") return v != 0 ? "yes" : "no";
  if (m.unit == "bytes") {
    std::snprintf(buf, sizeof buf, "%.2f GiB", v / (1024.0 * 1024 * 1024));
  } else if (m.unit == "s") {
    if (v < 1e-3) {
      std::snprintf(buf, sizeof buf, "%.3f us", v * 1e6);
    } else if (v < 1) {
      std::snprintf(buf, sizeof buf, "%.3f ms", v * 1e3);
    } else {
      std::snprintf(buf, sizeof buf, "%.4f s", v);
    }
  } else if (m.unit == "ratio") {
    std::snprintf(buf, sizeof buf, "%.1f %%", v * 100);
  } else if (m.unit == "count") {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g %s", v, m.unit.c_str());
  }
  return buf;
}

std::string assumptions_json(const std::vector<Assumption>& assumptions) {
  std::string out = ",\n  \"assumptions\": [";
  for (std::size_t i = 0; i < assumptions.size(); ++i) {
    const Assumption& a = assumptions[i];
    out += std::string(i == 0 ? "" : ",") + "\n    {\"setting\": " + json::quote(a.setting) + ", \"assumed\": " +
           json::quote(a.assumed) + ", \"default_of\": " + json::quote(a.default_of) + ", \"alternatives\": [";
    for (std::size_t j = 0; j < a.alternatives.size(); ++j) {
      const AssumptionAlternative& alt = a.alternatives[j];
      out += std::string(j == 0 ? "" : ", ") + "{\"value\": " + json::quote(alt.value) +
             ", \"step_time_s\": " + json::number(alt.step_time_s) + ", \"change\": " + json::number(alt.change) +
             ", \"estimated\": " + (alt.estimated ? "true" : "false") + "}";
    }
    out += "]}";
  }
  return out + (assumptions.empty() ? "]" : "\n  ]");
}

std::string assumptions_table(const std::vector<Assumption>& assumptions) {
  if (assumptions.empty()) return "assumptions: none (no unstated default moves the step time by more than 3 %)\n";
  std::string out = "assumptions: unstated settings whose default moves the step time by more than 3 % (the interval covers them)\n";
  for (const Assumption& a : assumptions) {
    out += "  " + a.setting + " = " + a.assumed + " (" + a.default_of + ")";
    for (const AssumptionAlternative& alt : a.alternatives) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "; %s: %s (%+.1f %%%s)", alt.value.c_str(), human({"", alt.step_time_s, "s"}).c_str(),
                    alt.change * 100, alt.estimated ? ", estimated from one replica" : "");
      out += buf;
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string render_report(const Report& report, const std::string& format) {
  if (format == "json") return report_to_json(report);
  if (format == "csv") return report_to_csv(report);
  return report_to_table(report);
}

std::string report_to_json(const Report& report) {
  const std::vector<Metric>& metrics = report.metrics;
  // Metrics sharing a dotted prefix are adjacent, so nesting is a walk that opens and closes objects.
  std::ostringstream out;
  out << "{\n  \"scenario\": " << json::quote(report.scenario);
  std::vector<std::string> open;  // object path currently open
  for (std::size_t index = 0; index < metrics.size(); ++index) {
    const Metric& m = metrics[index];
    std::vector<std::string> parts = split_dots(m.name);
    std::string leaf = parts.back();
    const std::size_t bracket = leaf.find('[');
    if (bracket != std::string::npos) {
      if (leaf.compare(bracket, std::string::npos, "[0]") != 0) continue;  // written with element 0
      leaf.erase(bracket);
    }
    parts.pop_back();
    std::size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) ++common;
    while (open.size() > common) {
      open.pop_back();
      out << "\n" << std::string(2 * (open.size() + 1), ' ') << "}";
    }
    out << ",";  // a newly opened object's first member needs none: the comma goes before its key
    for (std::size_t i = common; i < parts.size(); ++i) {
      out << "\n" << std::string(2 * (open.size() + 1), ' ') << json::quote(parts[i]) << ": {";
      open.push_back(parts[i]);
    }
    out << "\n" << std::string(2 * (open.size() + 1), ' ') << json::quote(leaf) << ": ";
    if (bracket == std::string::npos) {
      out << json_value(m);
      continue;
    }
    const std::string base = m.name.substr(0, m.name.find('['));
    out << "[" << json_value(m);
    for (std::size_t next = index + 1; next < metrics.size() && metrics[next].name.rfind(base + "[", 0) == 0; ++next) {
      out << ", " << json_value(metrics[next]);
    }
    out << "]";
  }
  while (!open.empty()) {
    open.pop_back();
    out << "\n" << std::string(2 * (open.size() + 1), ' ') << "}";
  }
  if (report.assumptions) out << assumptions_json(*report.assumptions);
  out << "\n}\n";
  return out.str();
}

std::string report_to_table(const Report& report) {
  const std::vector<Metric>& metrics = report.metrics;
  std::size_t width = 6;
  for (const Metric& m : metrics) width = std::max(width, m.name.size());
  std::ostringstream out;
  out << "scenario: " << report.scenario << "\n";
  out << std::string(width + 2 + 24, '-') << "\n";
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const Metric& m = metrics[i];
    const std::size_t bracket = m.name.find('[');
    if (bracket == std::string::npos) {
      out << m.name << std::string(width + 2 - m.name.size(), ' ') << human(m) << "\n";
      continue;
    }
    if (m.name.compare(bracket, std::string::npos, "[0]") != 0) continue;  // shown with element 0
    const std::string base = m.name.substr(0, bracket);
    out << base << std::string(width + 2 - base.size(), ' ') << human(m);
    for (std::size_t next = i + 1; next < metrics.size() && metrics[next].name.rfind(base + "[", 0) == 0; ++next) {
      out << " .. " << human(metrics[next]);
    }
    out << "\n";
  }
  if (report.assumptions) out << assumptions_table(*report.assumptions);
  return out.str();
}

std::string report_to_csv(const Report& report) {
  std::ostringstream out;
  out << "name,value,unit\n";
  for (const Metric& m : report.metrics) {
    out << m.name << "," << (m.value ? number(*m.value, m.unit) : std::string()) << "," << m.unit << "\n";
  }
  return out.str();
}

}  // namespace hpcsim

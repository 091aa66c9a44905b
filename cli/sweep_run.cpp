#include "sweep_run.h"

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "analysis/sweep.h"
#include "commands.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim::cli {

SweepPlan sweep_plan(const SweepOptions& o) {
  std::vector<SweepAxis> axes;
  for (const std::string& v : o.vary) axes.push_back(parse_vary(v));
  const ConfigNode base = load_config(o.scenario, {});
  if (runnable_scenario_kind(base) != ScenarioKind::training) {
    throw ConfigError(base.loc(), "hpcsim sweep runs training scenarios");
  }
  // A key no value of its axis can set (a misspelt key) is a bad flag; a bad combination is a point.
  const SpecCatalog catalog(config_root());
  for (const SweepAxis& axis : axes) {
    std::optional<ConfigError> first;
    bool any = false;
    for (const std::string& value : axis.values) {
      try {
        parse_training_scenario(load_config(o.scenario, {axis.key + "=" + value}), catalog, "check");
        any = true;
        break;
      } catch (const ConfigError& e) {
        if (!first) first = e;
      }
    }
    if (!any) throw *first;
  }
  SweepPlan plan;
  plan.name = std::filesystem::path(o.scenario).stem().string();
  plan.study = sweep_study(plan.name, to_yaml_text(base), axes);
  return plan;
}

void open_study(const SweepOptions&, SweepPlan& plan, ResultsStore& store) {
  const std::optional<std::int64_t> found =
      store.find_study(content_hash(plan.study.base_scenario_text), parameters_json(plan.study.parameters));
  plan.study_id = found ? *found : store.record_study(plan.study);
  plan.pending.clear();
  plan.already_stored = 0;
  for (const StoredStudyPoint& p : store.study_points(plan.study_id)) {
    if (p.status == PointStatus::pending) {
      plan.pending.push_back(static_cast<std::size_t>(p.index));
    } else {
      ++plan.already_stored;
    }
  }
}

RunRecord simulate_point(const SweepOptions& o, const SweepPlan& plan, std::size_t index, const SpecCatalog& catalog,
                         const IntervalTable& intervals) {
  return run_sweep_point(o.scenario, plan.name, plan.study.points[index], catalog, intervals, HPCSIM_VERSION);
}

void store_point(ResultsStore& store, const SweepPlan& plan, std::size_t index, const RunRecord& record) {
  const std::optional<std::int64_t> same =
      record.status == "ok" ? store.find_by_hash(content_hash(record.scenario_text)) : std::nullopt;
  if (same) {
    store.link_study_point(plan.study_id, index, *same, PointStatus::ok);
  } else {
    store.record_study_point(plan.study_id, index, record);
  }
}

namespace {

std::string json_number(std::optional<double> value) {
  if (!value) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", *value);
  return buf;
}

std::string json_text(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

namespace {

std::optional<double> metric(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics) {
    if (m.name == name) return m.value;
  }
  return std::nullopt;
}

// One row per point: its values, status, step time, throughput (tokens where the model has them) and
// memory per GPU; an invalid point's reason after its row.
void print_table(const SweepPlan& plan, const std::vector<StoredStudyPoint>& points, ResultsStore& store,
                 const std::map<std::int64_t, std::string>& messages) {
  std::vector<std::size_t> width;
  for (const StudyParameter& p : plan.study.parameters) width.push_back(std::max<std::size_t>(p.key.size(), 6));
  std::ostringstream head;
  head << std::setw(4) << "#";
  for (std::size_t k = 0; k < width.size(); ++k) head << "  " << std::setw(static_cast<int>(width[k])) << plan.study.parameters[k].key;
  head << "  status   step_time_s    samples/s     tokens/s  memory_GiB";
  std::cout << head.str() << "\n";
  for (const StoredStudyPoint& p : points) {
    const StudyPoint& point = plan.study.points[static_cast<std::size_t>(p.index)];
    std::ostringstream row;
    row << std::setw(4) << p.index;
    for (std::size_t k = 0; k < width.size(); ++k) row << "  " << std::setw(static_cast<int>(width[k])) << point.values[k].second;
    row << "  " << std::left << std::setw(6) << to_string(p.status) << std::right;
    const std::vector<Metric> metrics = p.run_id ? store.metrics(*p.run_id) : std::vector<Metric>{};
    const auto cell = [&](const std::string& name, double scale, int w, const char* format) {
      const std::optional<double> v = metric(metrics, name);
      char buf[48];
      if (v) {
        std::snprintf(buf, sizeof buf, format, *v * scale);
      } else {
        std::snprintf(buf, sizeof buf, "%s", "-");
      }
      row << "  " << std::setw(w) << buf;
    };
    if (p.status == PointStatus::ok || p.status == PointStatus::oom) {
      cell("step_time_s", 1, 12, "%.4f");
      cell("throughput.samples_per_s", 1, 11, "%.1f");
      cell("throughput.tokens_per_s", 1, 11, "%.0f");
      cell("memory_per_gpu_bytes", 1.0 / (1024.0 * 1024 * 1024), 10, "%.1f");
    }
    std::string line = row.str();
    line.erase(line.find_last_not_of(' ') + 1);
    std::cout << line << "\n";
    if (p.status == PointStatus::error && p.run_id) std::cout << "      " << messages.at(*p.run_id) << "\n";
  }
}

}  // namespace

void print_sweep_results(const SweepOptions& o, const SweepPlan& plan) {
  ResultsStore store(o.db);
  const std::vector<StoredStudyPoint> points = store.study_points(plan.study_id);
  std::map<std::int64_t, std::string> messages;
  for (const StoredRun& run : store.runs()) messages[run.id] = run.message;
  std::size_t failed = 0;
  for (const StoredStudyPoint& p : points) failed += p.status != PointStatus::ok;
  if (o.format != "json") {
    print_table(plan, points, store, messages);
    std::cout << "\n" << points.size() << " points (" << plan.already_stored << " stored before this run), " << failed
              << " not ok; study " << plan.study_id << " in " << o.db << "\n";
    return;
  }
  std::cout << "{\n  \"study_id\": " << plan.study_id << ",\n  \"points\": [";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const StoredStudyPoint& p = points[i];
    std::vector<Metric> metrics;
    if (p.run_id) metrics = store.metrics(*p.run_id);
    std::cout << (i == 0 ? "\n" : ",\n") << "    {\"index\": " << p.index << ", \"values\": " << p.values_json
              << ", \"status\": \"" << to_string(p.status) << "\", \"run_id\": "
              << (p.run_id ? std::to_string(*p.run_id) : "null") << ", \"message\": "
              << json_text(p.run_id ? messages[*p.run_id] : "") << ", \"metrics\": {";
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      std::cout << (m == 0 ? "" : ", ") << json_text(metrics[m].name) << ": " << json_number(metrics[m].value);
    }
    std::cout << "}}";
  }
  std::cout << (points.empty() ? "]" : "\n  ]") << ",\n  \"summary\": {\"points\": " << points.size()
            << ", \"already_stored\": " << plan.already_stored << ", \"not_ok\": " << failed << "}\n}\n";
}

}  // namespace hpcsim::cli

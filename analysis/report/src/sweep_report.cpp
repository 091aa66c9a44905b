#include "report/sweep_report.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "configs/json_writer.h"

namespace hpcsim {

namespace {

std::optional<double> metric(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics) {
    if (m.name == name) return m.value;
  }
  return std::nullopt;
}

struct RunInfo {
  std::string kind, message;
};

// Every stored run's kind and message, by id (the store read once).
std::map<std::int64_t, RunInfo> run_infos(const ResultsStore& store) {
  std::map<std::int64_t, RunInfo> infos;
  for (const StoredRun& run : store.runs()) infos[run.id] = {run.kind, run.message};
  return infos;
}

// The kind of the study's runs (training, serve, mpi): the kind of its first stored run. Each kind's table
// shows its own figures (a training step, an endpoint's latency and rate, an application's time and rate).
std::string study_kind(const std::map<std::int64_t, RunInfo>& infos, const std::vector<StoredStudyPoint>& points) {
  for (const StoredStudyPoint& p : points) {
    if (!p.run_id) continue;
    const auto it = infos.find(*p.run_id);
    return it != infos.end() ? it->second.kind : "training";
  }
  return "training";
}

std::size_t not_ok(const std::vector<StoredStudyPoint>& points) {
  std::size_t failed = 0;
  for (const StoredStudyPoint& p : points) failed += p.status != PointStatus::ok;
  return failed;
}

}  // namespace

std::string sweep_results_table(const ResultsStore& store, const SweepResultsView& view) {
  const std::vector<StoredStudyPoint> points = store.study_points(view.study_id);
  const std::map<std::int64_t, RunInfo> infos = run_infos(store);
  const Study& study = view.study;
  std::ostringstream out;
  std::vector<std::size_t> width;
  for (const StudyParameter& p : study.parameters) width.push_back(std::max<std::size_t>(p.key.size(), 6));
  std::ostringstream head;
  head << std::setw(4) << "#";
  for (std::size_t k = 0; k < width.size(); ++k) head << "  " << std::setw(static_cast<int>(width[k])) << study.parameters[k].key;
  const std::string kind = study_kind(infos, points);
  const bool mpi = kind == "mpi", serve = kind == "serve";
  head << (mpi     ? "  status        time_s       gflops  comm_share"
           : serve ? "  status        p99_ms      p50_ms   requests/s   USD/M_req  dropped"
                   : "  status   step_time_s    samples/s     tokens/s  memory_GiB");
  out << head.str() << "\n";
  for (const StoredStudyPoint& p : points) {
    const StudyPoint& point = study.points[static_cast<std::size_t>(p.index)];
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
    if (serve && p.status == PointStatus::ok) {
      cell("latency_s.p99", 1e3, 12, "%.3f");
      cell("latency_s.p50", 1e3, 10, "%.3f");
      cell("throughput_rps", 1, 11, "%.1f");
      cell("cost_per_million_requests_usd", 1, 10, "%.3f");
      cell("dropped", 1, 7, "%.0f");
    } else if (mpi && p.status == PointStatus::ok) {
      cell("time_s", 1, 12, "%.4f");
      cell("gflops", 1, 12, "%.0f");
      // The share of the time that is communication not hidden behind compute: the programs' breakdown is per
      // iteration (breakdown.exposed_comm_s of iteration_s), HPL's of the whole run (breakdown.exposed_s of time_s).
      const auto per_iteration = metric(metrics, "breakdown.exposed_comm_s");
      const auto exposed = per_iteration ? per_iteration : metric(metrics, "breakdown.exposed_s");
      const auto of = metric(metrics, per_iteration ? "iteration_s" : "time_s");
      char buf[48] = "-";
      if (exposed && of && *of > 0) std::snprintf(buf, sizeof buf, "%.1f %%", 100 * *exposed / *of);
      row << "  " << std::setw(10) << buf;
    } else if (p.status == PointStatus::ok || p.status == PointStatus::oom) {
      cell("step_time_s", 1, 12, "%.4f");
      cell("throughput.samples_per_s", 1, 11, "%.1f");
      cell("throughput.tokens_per_s", 1, 11, "%.0f");
      cell("memory_per_gpu_bytes", 1.0 / (1024.0 * 1024 * 1024), 10, "%.1f");
    }
    std::string line = row.str();
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n";
    if (p.status == PointStatus::error && p.run_id) out << "      " << infos.at(*p.run_id).message << "\n";
  }
  out << "\n" << points.size() << " points (" << view.already_stored << " stored before this run), " << not_ok(points)
      << " not ok; study " << view.study_id << " in " << view.db << "\n";
  return out.str();
}

std::string sweep_results_json(const ResultsStore& store, const SweepResultsView& view) {
  const std::vector<StoredStudyPoint> points = store.study_points(view.study_id);
  std::map<std::int64_t, RunInfo> infos = run_infos(store);
  std::ostringstream out;
  out << "{\n  \"study_id\": " << view.study_id << ",\n  \"points\": [";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const StoredStudyPoint& p = points[i];
    json::Line metrics = json::Line::object();
    if (p.run_id) {
      for (const Metric& m : store.metrics(*p.run_id)) metrics.field(m.name, json::number(m.value));
    }
    out << (i == 0 ? "\n" : ",\n") << "    "
        << json::Line::object()
               .field("index", json::integer(p.index))
               .field("values", p.values_json)
               .field("status", json::quote(to_string(p.status)))
               .field("run_id", p.run_id ? json::integer(*p.run_id) : "null")
               .field("message", json::quote(p.run_id ? infos[*p.run_id].message : ""))
               .field("metrics", metrics.str())
               .str();
  }
  out << (points.empty() ? "]" : "\n  ]") << ",\n  \"summary\": "
      << json::Line::object()
             .field("points", json::integer(static_cast<std::int64_t>(points.size())))
             .field("already_stored", json::integer(static_cast<std::int64_t>(view.already_stored)))
             .field("not_ok", json::integer(static_cast<std::int64_t>(not_ok(points))))
             .str()
      << "\n}\n";
  return out.str();
}

}  // namespace hpcsim

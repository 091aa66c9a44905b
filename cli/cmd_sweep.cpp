// hpcsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--db FILE] [--jobs N] [--format table|json]:
// the cross product of the varied keys, each point a run in the store, stored as it completes. A sweep
// started again finds its study (same scenario, same axes) and runs only the points still pending, so one
// killed at any moment loses nothing and stores nothing twice. --jobs N runs the points in N processes,
// each writing its own points (SQLite serializes the writes; each point is one transaction).
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "analysis/prediction_interval.h"
#include "analysis/results_store.h"
#include "analysis/sweep.h"
#include "commands.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "workloads/scenario.h"
#include "workloads/scenario_kind.h"

namespace hpcsim::cli {

namespace {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> vary;
  std::string db = "results.db";
  int jobs = 1;
  std::string format = "table";
};

struct SweepPlan {
  std::string name;
  Study study;
  std::int64_t study_id = 0;
  std::vector<std::size_t> pending;  // point indices still to run, in order
};

// Runs `indices` (this process's share) and stores each point as it completes, reusing a stored run of
// the same resolved scenario where there is one; after_each runs after each point is stored. Returns false
// when the store failed.
bool run_points(const SweepOptions& o, const SweepPlan& plan, const std::vector<std::size_t>& indices,
                const std::function<void()>& after_each = {}) {
  try {
    ResultsStore store(o.db);
    const SpecCatalog catalog(config_root());
    const IntervalTable intervals = IntervalTable::load(config_root());
    for (const std::size_t i : indices) {
      const StudyPoint& point = plan.study.points[i];
      std::vector<std::string> sets;
      for (const auto& [key, value] : point.values) sets.push_back(key + "=" + value);
      std::optional<std::int64_t> same;
      try {
        same = store.find_by_hash(content_hash(to_yaml_text(load_config(o.scenario, sets))));
      } catch (const ConfigError&) {
        // an invalid point: run_sweep_point stores it with its reason
      }
      if (same) {
        store.link_study_point(plan.study_id, i, *same, PointStatus::ok);
      } else {
        store.record_study_point(plan.study_id, i,
                                 run_sweep_point(o.scenario, plan.name, point, catalog, intervals, HPCSIM_VERSION));
      }
      if (after_each) after_each();
    }
  } catch (const StoreError& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return false;
  }
  return true;
}

struct Counts {
  std::size_t done = 0, failed = 0;
};

Counts count_points(const std::string& db, std::int64_t study_id) {
  Counts c;
  for (const StoredStudyPoint& p : ResultsStore(db).study_points(study_id)) {
    if (p.status == PointStatus::pending) continue;
    ++c.done;
    if (p.status != PointStatus::ok) ++c.failed;
  }
  return c;
}

// "\rsweep: 12/40 points, 1 failed, about 30 s left" on a terminal.
void show_progress(const Counts& c, std::size_t total, std::size_t done_before, double elapsed_s) {
  const std::size_t ran = c.done - done_before;
  std::ostringstream line;
  line << "\rsweep: " << c.done << "/" << total << " points, " << c.failed << " failed";
  if (ran > 0 && c.done < total) {
    line << ", about " << static_cast<long long>(elapsed_s / static_cast<double>(ran) * static_cast<double>(total - c.done) + 0.5)
         << " s left";
  }
  std::cerr << line.str() << "   " << std::flush;
}

// Runs the pending points in `jobs` processes (1: this one), showing progress on a terminal.
bool run_pending(const SweepOptions& o, const SweepPlan& plan, bool progress) {
  const std::size_t total = plan.study.points.size();
  const std::size_t done_before = total - plan.pending.size();
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const int jobs = std::max(1, std::min<int>(o.jobs, static_cast<int>(plan.pending.size())));
  if (jobs <= 1) {
    const bool ok = run_points(o, plan, plan.pending, [&] {
      if (progress) show_progress(count_points(o.db, plan.study_id), total, done_before, elapsed());
    });
    if (progress) std::cerr << "\n";
    return ok;
  }
  const pid_t parent = getpid();
  std::vector<pid_t> children;
  for (int k = 0; k < jobs; ++k) {
    std::vector<std::size_t> share;
    for (std::size_t n = static_cast<std::size_t>(k); n < plan.pending.size(); n += static_cast<std::size_t>(jobs)) {
      share.push_back(plan.pending[n]);
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = fork();
    if (child < 0) {
      std::cerr << "hpcsim sweep: --jobs: cannot start a process\n";
      for (const pid_t c : children) kill(c, SIGKILL);
      return false;
    }
    if (child == 0) {
      // A worker dies with the sweep, so a killed sweep leaves no process still writing points.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      _exit(run_points(o, plan, share) ? 0 : 1);
    }
    children.push_back(child);
  }
  bool ok = true;
  std::size_t running = children.size();
  while (running > 0) {
    int status = 0;
    const pid_t ended = waitpid(-1, &status, WNOHANG);
    if (ended > 0) {
      --running;
      ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
      continue;
    }
    if (progress) show_progress(count_points(o.db, plan.study_id), total, done_before, elapsed());
    std::this_thread::sleep_for(std::chrono::milliseconds(ended == 0 ? 200 : 0));
    if (ended < 0) break;
  }
  if (progress) {
    show_progress(count_points(o.db, plan.study_id), total, done_before, elapsed());
    std::cerr << "\n";
  }
  return ok;
}

std::string json_number(std::optional<double> value) {
  if (!value) return "null";
  const double v = *value;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
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

// The study's points as stored: values, status and metrics.
void print_results(const SweepOptions& o, const SweepPlan& plan, std::size_t already_stored) {
  ResultsStore store(o.db);
  const std::vector<StoredStudyPoint> points = store.study_points(plan.study_id);
  std::map<std::int64_t, std::string> messages;
  for (const StoredRun& run : store.runs()) messages[run.id] = run.message;
  std::size_t failed = 0;
  if (o.format == "json") {
    std::cout << "{\n  \"study_id\": " << plan.study_id << ",\n  \"points\": [";
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const StoredStudyPoint& p = points[i];
    if (p.status != PointStatus::ok) ++failed;
    std::vector<Metric> metrics;
    if (p.run_id) metrics = store.metrics(*p.run_id);
    if (o.format == "json") {
      std::cout << (i == 0 ? "\n" : ",\n") << "    {\"index\": " << p.index << ", \"values\": " << p.values_json
                << ", \"status\": \"" << to_string(p.status) << "\", \"run_id\": "
                << (p.run_id ? std::to_string(*p.run_id) : "null") << ", \"message\": "
                << json_text(p.run_id ? messages[*p.run_id] : "") << ", \"metrics\": {";
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        std::cout << (m == 0 ? "" : ", ") << json_text(metrics[m].name) << ": " << json_number(metrics[m].value);
      }
      std::cout << "}}";
    } else {
      std::cout << i << "  " << p.values_json << "  " << to_string(p.status);
      for (const Metric& m : metrics) {
        if (m.name == "step_time_s" || m.name == "samples_per_s" || m.name == "tokens_per_s") {
          std::cout << "  " << m.name << " " << json_number(m.value);
        }
      }
      if (p.status == PointStatus::error && p.run_id) std::cout << "  " << messages[*p.run_id];
      std::cout << "\n";
    }
  }
  if (o.format == "json") {
    std::cout << (points.empty() ? "]" : "\n  ]") << ",\n  \"summary\": {\"points\": " << points.size()
              << ", \"already_stored\": " << already_stored << ", \"not_ok\": " << failed << "}\n}\n";
  } else {
    std::cout << "\n" << points.size() << " points (" << already_stored << " stored before this run), " << failed
              << " not ok; study " << plan.study_id << " in " << o.db << "\n";
  }
}

int run(const SweepOptions& o) {
  SweepPlan plan;
  std::vector<SweepAxis> axes;
  try {
    for (const std::string& v : o.vary) axes.push_back(parse_vary(v));
  } catch (const std::invalid_argument& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
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
          parse_scenario(load_config(o.scenario, {axis.key + "=" + value}), catalog, "check");
          any = true;
          break;
        } catch (const ConfigError& e) {
          if (!first) first = e;
        }
      }
      if (!any) throw *first;
    }
    plan.name = std::filesystem::path(o.scenario).stem().string();
    plan.study = sweep_study(plan.name, to_yaml_text(base), axes);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  std::size_t already_stored = 0;
  try {
    ResultsStore store(o.db);
    const std::optional<std::int64_t> found =
        store.find_study(content_hash(plan.study.base_scenario_text), parameters_json(plan.study.parameters));
    plan.study_id = found ? *found : store.record_study(plan.study);
    for (const StoredStudyPoint& p : store.study_points(plan.study_id)) {
      if (p.status == PointStatus::pending) {
        plan.pending.push_back(static_cast<std::size_t>(p.index));
      } else {
        ++already_stored;
      }
    }
  } catch (const StoreError& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return kExitFailure;
  }
  const bool progress = o.format != "json" && isatty(STDERR_FILENO) != 0;
  const bool ok = run_pending(o, plan, progress);
  try {
    print_results(o, plan, already_stored);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return kExitFailure;
  }
  return ok ? kExitOk : kExitFailure;
}

}  // namespace

Action add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "Run a scenario at every combination of varied keys, resumably");
  cmd->add_option("scenario", o->scenario, "Scenario YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--vary", o->vary, "KEY=V1,V2,... or KEY=A..B, A..BxF, A..B+S (repeatable)")
      ->required()
      ->type_name("KEY=VALUES");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_option("--jobs", o->jobs, "Run the points in N processes")->check(CLI::PositiveNumber);
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

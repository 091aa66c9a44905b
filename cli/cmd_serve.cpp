// hpcsim serve SCENARIO: an inference endpoint under load (kind: serve; docs/serving.md). R replicas of an
// instance behind a load balancer, requests from a seeded process, a trace or a closed loop, dynamic
// batching; prints latency percentiles, throughput, utilization, queueing and cost per million requests.
// --sweep-load runs the endpoint at several rates; --target-p99 finds the fewest replicas meeting a p99;
// --max-rate-within p99=TIME the highest rate whose p99 stays within TIME (MLPerf's server scenario).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "report/report_render.h"
#include "store/results_store.h"
#include "driver/scenario_run.h"
#include "commands.h"
#include "progress.h"
#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "configs/units.h"
#include "configs/yaml_text.h"
#include "workloads/scenario/scenario_kind.h"
#include "workloads/serving/serve_scenario.h"

namespace hpcsim::cli {

namespace {

struct ServeOptions {
  std::string scenario;
  std::vector<std::string> overrides;
  std::string db = "results.db";
  bool no_db = false;
  std::string format = "table";
  std::string sweep_load;   // rates, e.g. "50,100,200"
  std::string target_p99;   // a time, e.g. "50ms"
  std::string max_rate_within;  // "p99=TIME", e.g. "p99=15ms"
  int max_replicas = 1024;
};

// "50,100,200" -> rates in requests per second; ConfigError naming the flag otherwise.
std::vector<double> parse_rates(const std::string& text) {
  const SourceLoc flag{"--sweep-load " + text, 0, 0};
  std::vector<double> rates;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      // parse_quantity, not std::stod: stod reads "inf" and hexadecimal (a sweep from an infinite rate ran and
      // printed inf: found by tests/fuzz).
      const double r = parse_quantity(item, Dimension::count);
      if (!(r > 0)) throw std::invalid_argument(item);
      rates.push_back(r);
    } catch (const std::exception&) {
      throw ConfigError(flag, "'" + item + "' is not a positive request rate (requests per second)");
    }
  }
  if (rates.empty()) throw ConfigError(flag, "give at least one rate, e.g. --sweep-load 50,100,200");
  return rates;
}

double parse_target(const std::string& text) {
  const SourceLoc flag{"--target-p99 " + text, 0, 0};
  try {
    const double t = parse_quantity(text, Dimension::time, "s");
    if (!(t > 0)) throw ConfigError(flag, "the p99 target must be positive");
    return t;
  } catch (const UnitError& e) {
    throw ConfigError(flag, e.what());
  }
}

// "p99=15ms" -> the bound in seconds; ConfigError naming the flag otherwise.
double parse_max_rate_within(const std::string& text) {
  const SourceLoc flag{"--max-rate-within " + text, 0, 0};
  const std::string prefix = "p99=";
  if (text.rfind(prefix, 0) != 0) {
    throw ConfigError(flag, "give the percentile and its bound as p99=TIME, e.g. p99=15ms (p99 is the one built)");
  }
  try {
    const double t = parse_quantity(text.substr(prefix.size()), Dimension::time, "s");
    if (!(t > 0)) throw ConfigError(flag, "the p99 bound must be positive");
    return t;
  } catch (const UnitError& e) {
    throw ConfigError(flag, e.what());
  }
}

}  // namespace

int run_serve_file(const std::string& scenario_file, const std::vector<std::string>& overrides, const std::string& db,
                   bool no_db, const std::string& format, const std::string& sweep_load, const std::string& target_p99,
                   int max_replicas, const std::string& max_rate_within, const std::string& command) {
  ScenarioRequest request;
  request.file = scenario_file;
  request.overrides = overrides;
  request.serve_max_replicas = max_replicas;
  LoadedScenario loaded;
  try {
    loaded = load_scenario(request);
    if (loaded.kind != ScenarioKind::serve) {
      throw ConfigError(loaded.root.has("kind") ? loaded.root.at("kind").loc() : loaded.root.loc(),
                        "hpcsim serve runs kind: serve scenarios (this one is " +
                            std::string(to_string(scenario_kind(loaded.root))) + ")");
    }
    if (!sweep_load.empty()) request.serve_rates = parse_rates(sweep_load);
    if (!target_p99.empty()) request.serve_target_p99_s = parse_target(target_p99);
    if (!max_rate_within.empty()) request.serve_max_rate_p99_s = parse_max_rate_within(max_rate_within);
    const SourceLoc max_flag{"--max-replicas " + std::to_string(max_replicas)};
    if (max_replicas < 1) throw ConfigError(max_flag, "must be at least 1");
    // The search may simulate that many replicas, each held in memory (serving.replicas is held the same).
    check_count(CountLimit::nodes, max_replicas, max_flag, "--target-p99's search (a node per replica at least)");
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }

  return run_loaded_serve(loaded, request, db, no_db, format, command);
}

int run_loaded_serve(const LoadedScenario& loaded, const ScenarioRequest& request, const std::string& db, bool no_db,
                     const std::string& format, const std::string& command) {
  std::optional<ResultsStore> store;  // checked before the simulation, so that a bad --db costs none
  if (!open_store(db, no_db, command, store)) return kExitBadInput;
  ScenarioOutcome run;
  // An LLM endpoint at a million requests runs minutes: its requests finished, on a terminal; a load sweep of
  // many rates likewise: its runs finished.
  Progress progress(command, request.serve_rates.empty() ? "requests" : "runs", 0, format);
  ScenarioRequest with_progress = request;
  with_progress.serve_after_each = progress.counter();
  try {
    run = run_scenario(loaded, with_progress, SpecCatalog(config_root()), IntervalTable{}, HPCSIM_VERSION);
  } catch (const ConfigError& e) {
    progress.finish();
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    progress.finish();
    std::cerr << "hpcsim " << command << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  progress.finish();
  std::cout << render_report(run.record.report, format);
  if (!run.cannot_meet.empty()) std::cerr << "cannot meet the target: " << run.cannot_meet << "\n";
  int status = run.cannot_meet.empty() ? kExitOk : kExitFailure;
  const int stored = store_record(store, run.record, command);
  return stored != kExitOk ? stored : status;
}

Action add_serve_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("serve", "Simulate an inference endpoint under load (kind: serve scenarios)");
  auto o = std::make_shared<ServeOptions>();
  cmd->add_option("scenario", o->scenario, "Serve scenario YAML file")->required();
  cmd->add_option("--set", o->overrides, "Override a scenario key, e.g. --set serving.replicas=4 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_flag("--no-db", o->no_db, "Do not store the run");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  auto* sweep = cmd->add_option("--sweep-load", o->sweep_load,
                                "Run the endpoint at each request rate: the latency-vs-load curve")
                    ->type_name("R1,R2,...");
  auto* target = cmd->add_option("--target-p99", o->target_p99,
                  "Find the fewest replicas whose p99 latency meets the target at the scenario's load (exit 1 "
                  "when no count can, with the reason)")
      ->type_name("TIME")
      ->excludes(sweep);
  cmd->add_option("--max-replicas", o->max_replicas, "The most replicas --target-p99 tries (default 1024)");
  cmd->add_option("--max-rate-within", o->max_rate_within,
                  "Find the highest request rate whose p99 latency stays within TIME, nothing dropped (MLPerf's "
                  "server scenario; exit 1 when no rate can, with the reason)")
      ->type_name("p99=TIME")
      ->excludes(sweep)
      ->excludes(target);
  return [o] {
    return run_serve_file(o->scenario, o->overrides, o->db, o->no_db, o->format, o->sweep_load, o->target_p99,
                          o->max_replicas, o->max_rate_within, "serve");
  };
}

}  // namespace hpcsim::cli

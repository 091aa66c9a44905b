#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "analysis/results_store.h"
#include "analysis/step_report.h"
#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "workloads/scenario.h"
#include "workloads/training/simulate_scenario.h"

namespace hpcsim::cli {

namespace {

struct RunOptions {
  std::string scenario;
  std::vector<std::string> overrides;
  std::string db = "results.db";
  bool no_db = false;
  std::string format = "table";
};

int run(const RunOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  const std::string started_at = iso8601_utc_now();
  ConfigNode root;
  Scenario scenario;
  try {
    root = load_config(o.scenario, o.overrides);
    scenario = parse_scenario(root, SpecCatalog(config_root()), std::filesystem::path(o.scenario).stem().string());
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }

  const ModelStepReport report = simulate_scenario(scenario);
  const StepResult& result = report.result;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const std::vector<Metric> metrics = step_metrics(result, wall_s);

  if (o.format == "json") {
    std::cout << metrics_to_json(scenario.name, metrics);
  } else if (o.format == "csv") {
    std::cout << metrics_to_csv(metrics);
  } else {
    std::cout << metrics_to_table(scenario.name, metrics);
  }
  if (!result.fits_in_memory) {
    const TrainingMemory& m = report.memory;
    constexpr double kGiB = 1024.0 * 1024 * 1024;
    std::cerr << "warning: out of memory: the step needs " << m.total() / kGiB << " GiB per GPU (weights "
              << m.weights / kGiB << ", gradients " << m.gradients / kGiB << ", optimizer state "
              << m.optimizer_state / kGiB << ", activations " << m.activations / kGiB << " GiB) but the "
              << scenario.cluster.node.gpu.name << " has " << scenario.cluster.node.gpu.memory_bytes() / kGiB
              << " GiB; timings assume it fitted\n";
  }

  if (o.no_db) return kExitOk;
  try {
    ResultsStore store(o.db);
    RunRecord record;
    record.scenario_name = scenario.name;
    record.scenario_text = to_yaml_text(root);
    record.tool_version = HPCSIM_VERSION;
    record.started_at = started_at;
    record.wall_s = wall_s;
    record.status = result.fits_in_memory ? "ok" : "oom";
    if (!result.fits_in_memory) record.message = "memory per GPU exceeds the GPU's capacity";
    record.metrics = metrics;
    store.record_run(record);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim run: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and store the result");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("scenario", o->scenario, "Scenario YAML file")->required();
  cmd->add_option("--set", o->overrides, "Override a scenario key, e.g. --set cluster.nodes=4 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_flag("--no-db", o->no_db, "Do not store the run");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

// hpcsim plan PLAN.yaml: capacity planning. Screens every node type x node count x network x parallel layout
// of the plan, simulates the most promising in full, and prints the cheapest configurations that meet the
// constraints and the Pareto front of time to train against cost and energy.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "report/plan_report.h"
#include "store/results_store.h"
#include "commands.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/planning/capacity_plan.h"

namespace hpcsim::cli {

namespace {

struct PlanOptions {
  std::string plan;
  std::vector<std::string> overrides;
  std::string db = "results.db";
  bool no_db = false;
  std::string format = "table";
  bool screen_only = false;
};

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const PlanOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  const SpecCatalog catalog(config_root());
  PlanSpec plan;
  try {
    plan = parse_plan(load_config(o.plan, o.overrides), catalog, std::filesystem::path(o.plan).stem().string());
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  if (o.screen_only) plan.full_simulations = 0;
  const PlanResult result = run_capacity_plan(plan, catalog);
  std::cout << (o.format == "json" ? plan_to_json(plan, result) : plan_to_table(plan, result));
  std::cerr << plan_rates(result) << "\n";
  if (o.no_db) return kExitOk;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return store_record(o.db, plan_record(plan, result, file_text(o.plan), HPCSIM_VERSION, wall_s), "plan");
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plan", "Capacity planning: search node types, counts, networks and parallel layouts "
                                         "for the cheapest configurations that meet a time-to-train or budget target");
  auto o = std::make_shared<PlanOptions>();
  cmd->add_option("plan", o->plan, "Plan YAML file (kind: plan)")->required();
  cmd->add_option("--set", o->overrides, "Override a plan key, e.g. --set constraints.budget='5e6 USD' (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_flag("--no-db", o->no_db, "Do not store the plan");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  cmd->add_flag("--screen-only", o->screen_only,
                "Rank by the analytical screen alone: simulate nothing in full (no Pareto front); for large grids");
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

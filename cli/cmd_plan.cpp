// hpcsim plan PLAN.yaml: capacity planning. Screens every node type x node count x network x parallel layout
// of the plan, simulates the most promising in full, and prints the cheapest configurations that meet the
// constraints and the Pareto front of time to train against cost and energy.
#include <iostream>
#include <memory>
#include <optional>

#include "report/plan_report.h"
#include "store/results_store.h"
#include "commands.h"
#include "progress.h"
#include "configs/config_error.h"
#include "driver/plan_run.h"

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

int run(const PlanOptions& o) {
  const SpecCatalog catalog(config_root());
  PlanSpec plan;
  try {
    plan = load_plan(o.plan, o.overrides, catalog, o.screen_only);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  std::optional<ResultsStore> store;  // checked before the search, so that a bad --db costs no simulation
  if (!open_store(o.db, o.no_db, "plan", store)) return kExitBadInput;
  // A grid at the configurations limit screens for about a minute, and full simulations take seconds each:
  // on a terminal, one progress line per stage.
  std::optional<Progress> progress;
  PlanStage shown = PlanStage::screen;
  const PlanRun run = run_plan(plan, o.plan, o.overrides, catalog, HPCSIM_VERSION,
                               [&](PlanStage stage, std::size_t done, std::size_t total) {
                                 if (progress && stage != shown) progress->finish(), progress.reset();
                                 if (!progress) {
                                   shown = stage;
                                   progress.emplace("plan", stage == PlanStage::screen ? "configurations screened"
                                                                                       : "full simulations",
                                                    total, o.format);
                                 }
                                 progress->show(done);
                               });
  if (progress) progress->finish();
  std::cout << (o.format == "json" ? plan_to_json(plan, run.result) : plan_to_table(plan, run.result));
  std::cerr << plan_rates(run.result) << "\n";
  return store_record(store, run.record, "plan");
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

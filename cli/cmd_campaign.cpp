// hpcsim campaign: a hyperparameter search (grid or random, optionally with ASHA) as a job array on a
// batch queue; reports time to the best trial and GPU-hours.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "driver/scenario_run.h"
#include "report/campaign_report.h"
#include "store/results_store.h"
#include "commands.h"
#include "progress.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "workloads/campaign/campaign.h"
#include "workloads/campaign/trial_step_time.h"

namespace hpcsim::cli {

namespace {

struct CampaignOptions {
  std::string campaign;
  std::vector<std::string> overrides;
  std::string db = "results.db";
  bool no_db = false;
  std::string format = "table";
};

int run(const CampaignOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  const std::string started_at = iso8601_utc_now();
  ConfigNode root;
  CampaignSpec spec;
  const SpecCatalog catalog(config_root());
  try {
    root = load_config(o.campaign, o.overrides);
    spec = parse_campaign(root, catalog, std::filesystem::path(o.campaign).stem().string());
    spec.name = what_if_name(spec.name, o.overrides);  // a what-if is named after what it ran
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  std::optional<ResultsStore> store;  // checked before the trials run, so that a bad --db costs no simulation
  if (!open_store(o.db, o.no_db, "campaign", store)) return kExitBadInput;
  CampaignResult result;
  try {
    // Every distinct trial is simulated (and checked) before the queue runs, so a bad workload is
    // reported as bad input at its key rather than from inside the simulation.
    Progress progress("campaign", "trials checked", spec.trials.size(), o.format);
    TrialStepTimer timer(spec, catalog, [&](std::size_t done, std::size_t) { progress.show(done); });
    progress.finish();
    result = run_campaign(
        spec,
        [&timer](std::int64_t trial, const std::vector<int>& node_ids) { return timer.seconds_per_step(trial, node_ids); },
        timer.node_leaf());
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {  // the training model refusing the trial's layout
    std::cerr << "hpcsim campaign: " << o.campaign << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  const CampaignSummary summary = summarize_campaign(spec, result);
  if (o.format == "json") {
    std::cout << campaign_to_json(spec, result, summary);
  } else if (o.format == "csv") {
    std::cout << campaign_to_csv(result);
  } else {
    std::cout << spec.name << ": " << spec.trials.size() << " trials, " << kSearchMethodNames.name(spec.method)
              << " search, early stopping " << kEarlyStoppingNames.name(spec.early_stopping) << ", at most "
              << spec.max_concurrent << " at once, " << spec.trial_nodes << " node(s) each, on " << spec.cluster_nodes
              << " nodes (" << kQueuePolicyNames.name(spec.policy) << ")\n"
              << campaign_to_table(spec, result, summary);
  }
  if (!store) return kExitOk;
  RunRecord record;
  record.report = Report{spec.name, "campaign", campaign_metrics(summary), std::nullopt};
  record.scenario_text = to_yaml_text(root);
  record.tool_version = HPCSIM_VERSION;
  record.started_at = started_at;
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return store_record(store, record, "campaign");
}

}  // namespace

Action add_campaign_command(CLI::App& app) {
  auto o = std::make_shared<CampaignOptions>();
  CLI::App* cmd = app.add_subcommand("campaign", "Run a hyperparameter-search campaign (grid or random, optionally ASHA) "
                                                 "as a job array on a batch queue");
  cmd->add_option("campaign", o->campaign, "Campaign YAML file (see examples/campaign/)")->required();
  cmd->add_option("--set", o->overrides, "Override a key, e.g. --set cluster.nodes=32 (repeatable)")->type_name("KEY=VALUE");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_flag("--no-db", o->no_db, "Do not store the run");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

// hpcsim schedule: a batch queue (FCFS, EASY or conservative backfilling, multifactor priority) over a job
// list or an SWF trace.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "store/results_store.h"
#include "report/schedule_gantt.h"
#include "report/schedule_report.h"
#include "commands.h"
#include "progress.h"
#include "configs/config_error.h"
#include "driver/schedule_run.h"

namespace hpcsim::cli {

namespace {

struct ScheduleOptions {
  std::string jobs;
  std::string cluster;
  std::optional<int> nodes;
  std::string policy;
  std::int64_t max_jobs = 0;
  int cores_per_node = 0;
  std::string db = "results.db";
  bool no_db = false;
  std::string format = "table";
  std::string gantt;  // trace-event JSON of who ran where and when
};

int run(const ScheduleOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  const std::string started_at = iso8601_utc_now();
  std::optional<ResultsStore> store;  // checked before the queue runs, so that a bad --db costs no simulation
  if (!open_store(o.db, o.no_db, "schedule", store)) return kExitBadInput;
  try {
    const SpecCatalog catalog(config_root());
    ScheduleRequest request{o.jobs, o.cluster, o.nodes, o.policy, o.max_jobs, o.cores_per_node};
    std::optional<Progress> progress;  // while a cluster's training jobs are timed, then while the queue runs
    bool queue_line = false;
    const ScheduleRun run = run_schedule(
        request, catalog,
        [&](const std::string& note) {
          if (progress) progress->finish(), progress.reset();
          std::cerr << "note: " << note << "\n";
        },
        [&](std::size_t done, std::size_t total) {
          if (!progress) progress.emplace("schedule", "training jobs timed", total, o.format);
          progress->show(done);
        },
        [&](std::size_t ended, std::size_t total) {  // the queue itself, after any timing
          if (progress && !queue_line) progress->finish(), progress.reset();
          if (!progress) progress.emplace("schedule", "jobs ended", total, o.format), queue_line = true;
          progress->show(ended);
        });
    if (progress) progress->finish();
    const std::vector<QueueRun>& runs = run.runs;
    const ScheduleSummary& summary = run.summary;
    const int nodes = run.nodes;
    if (o.format == "json") {
      std::cout << schedule_to_json(runs, summary, run.partitions);
    } else if (o.format == "csv") {
      std::cout << schedule_to_csv(runs, run.partitions);
    } else {
      std::cout << "policy " << o.policy << " on " << nodes << " nodes\n" << schedule_to_table(runs, summary, run.partitions);
    }
    if (!o.gantt.empty()) {
      std::ofstream gantt(o.gantt, std::ios::binary | std::ios::trunc);
      gantt << schedule_gantt_json(runs, nodes, {"hpcsim schedule " + std::filesystem::path(o.jobs).filename().string()});
      if (!gantt) {
        std::cerr << "hpcsim schedule: --gantt " << o.gantt << ": cannot write the file\n";
        return kExitFailure;
      }
    }
    if (!store) return kExitOk;
    RunRecord record;
    record.report = Report{std::filesystem::path(o.jobs).stem().string() + " " + o.policy, "schedule",
                           schedule_metrics(summary), std::nullopt};
    std::ostringstream text;
    text << "jobs: " << o.jobs << "\nnodes: " << nodes << "\npolicy: " << o.policy << "\nmax_jobs: " << o.max_jobs
         << "\ncores_per_node: " << o.cores_per_node << "\n";
    record.scenario_text = text.str();
    record.tool_version = HPCSIM_VERSION;
    record.started_at = started_at;
    record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return store_record(store, record, "schedule");
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace

Action add_schedule_command(CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  CLI::App* cmd = app.add_subcommand("schedule", "Run a batch queue (FCFS, EASY or conservative backfilling, multifactor priority) over jobs");
  cmd->add_option("jobs", o->jobs, "A job list (YAML, jobs: [...]) or an SWF trace (.swf)")->required()->check(CLI::ExistingFile);
  auto* cluster = cmd->add_option("--cluster", o->cluster, "A YAML file with a cluster: section (its node count)")
                      ->check(CLI::ExistingFile);
  auto* nodes = cmd->add_option("--nodes", o->nodes, "Nodes of the machine")->check(CLI::PositiveNumber);
  cluster->excludes(nodes);
  nodes->excludes(cluster);
  cmd->add_option("--policy", o->policy, "fcfs, easy, conservative or priority (multifactor, EASY backfill below it)")
      ->required()
      ->check(CLI::IsMember(kQueuePolicyNames.names()));
  cmd->add_option("--max-jobs", o->max_jobs, "Only the first N valid jobs")->check(CLI::PositiveNumber);
  cmd->add_option("--cores-per-node", o->cores_per_node, "A trace's processors are cores, C per node")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_flag("--no-db", o->no_db, "Do not store the run");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("--gantt", o->gantt,
                  "Write who ran where and when as Chrome trace-event JSON (Perfetto; scripts/gantt_png.py makes a PNG)")
      ->type_name("FILE");
  return [o, cluster, nodes] {
    if (cluster->count() == 0 && nodes->count() == 0) {
      std::cerr << "hpcsim schedule: give the machine with --nodes N or --cluster FILE\n";
      return kExitBadInput;
    }
    return run(*o);
  };
}

}  // namespace hpcsim::cli

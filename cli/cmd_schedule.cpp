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
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "models/platform/cluster_config.h"
#include "workloads/scheduling/batch_queue.h"
#include "workloads/scheduling/queue_setup.h"
#include "workloads/scheduling/job_list.h"
#include "workloads/scheduling/node_leaves.h"
#include "workloads/scheduling/swf_trace.h"
#include "workloads/scheduling/training_job_timer.h"

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
    const QueuePolicy policy = *kQueuePolicyNames.parse(o.policy);
    int nodes = 0;
    MachineNodes machine;
    std::optional<ClusterConfig> cluster;
    const SpecCatalog catalog(config_root());
    if (o.nodes) {
      nodes = *o.nodes;
      check_count(CountLimit::nodes, nodes, SourceLoc{"--nodes " + std::to_string(nodes)}, "the machine");
    } else {
      cluster = parse_cluster(load_config(o.cluster, {}).at("cluster"), catalog);
      nodes = cluster->nodes;
      machine = MachineNodes{cluster->gpus_per_node, cluster->node.host_memory_bytes};
    }
    std::vector<BatchJob> jobs;
    std::int64_t skipped = 0;
    std::int64_t swf_unrunnable = 0;  // trace lines skipped without a note
    QueueSetup setup;
    setup.nodes = nodes;
    if (cluster) setup.node_leaf = node_leaves(*cluster);
    std::unique_ptr<TrainingJobTimer> timer;  // training jobs' run times on their nodes
    if (std::filesystem::path(o.jobs).extension() == ".swf") {
      SwfOptions swf;
      swf.machine_nodes = nodes;
      swf.cores_per_node = o.cores_per_node;
      swf.max_jobs = o.max_jobs;
      SwfTrace trace = load_swf(o.jobs, swf);
      jobs = std::move(trace.jobs);
      skipped = trace.skipped;
      swf_unrunnable = trace.skipped - trace.skipped_too_large;
      if (trace.skipped_too_large > 0) {
        std::cerr << "note: " << trace.skipped_too_large << " job(s) need more than the " << nodes
                  << " nodes and were skipped\n";
      }
      for (const std::int64_t user : trace.users) setup.accounts.push_back(Account{"user " + std::to_string(user), 1});
    } else {
      const JobList list = parse_job_list(load_config(o.jobs, {}));
      if (!list.training.empty()) {
        if (!cluster) {
          throw ConfigError(list.training.front().where,
                            "training jobs run on a cluster: give it with --cluster FILE, not --nodes");
        }
        Progress progress("schedule", "training jobs timed", list.training.size(), o.format);
        timer = std::make_unique<TrainingJobTimer>(*cluster, catalog, list.training,
                                                   [&](std::size_t done, std::size_t) { progress.show(done); });
        progress.finish();
      }
      setup = resolve_queue_setup(queue_setup(list, nodes, setup.node_leaf));
      // A job no partition can run is skipped with its reason and counted, as a trace's are.
      for (BatchJob job : list.jobs) {
        if (o.cores_per_node > 0 && job.kind < 0) {  // in 64 bits: --cores-per-node 2^31-1 overflowed an int
          job.nodes = static_cast<int>((std::int64_t{job.nodes} + o.cores_per_node - 1) / o.cores_per_node);
        }
        if (job.estimate_only) job.estimate_s = timer->estimate_s(job.kind);
        std::string why = fit_to_nodes(job, machine);
        if (why.empty()) why = job_refusal(job, setup);
        if (!why.empty()) {
          std::cerr << "note: job " << job.id << " " << why << ": skipped\n";
          ++skipped;
          continue;
        }
        if (o.max_jobs > 0 && static_cast<std::int64_t>(jobs.size()) == o.max_jobs) break;
        jobs.push_back(job);
      }
    }
    if (jobs.empty()) {  // every job skipped: a schedule of nothing says nothing
      throw ConfigError(SourceLoc{o.jobs}, "no job to schedule: all " + std::to_string(skipped) + " were skipped" +
                                               (swf_unrunnable > 0 ? " (" + std::to_string(swf_unrunnable) +
                                                                         " with no run time or no processors)"
                                                                   : ""));
    }
    const std::vector<QueueRun> runs =
        simulate_batch_queue(jobs, setup, policy, timer ? timer->hook() : RunTimeHook{});
    const ScheduleSummary summary = summarize_schedule(runs, skipped, nodes);
    if (o.format == "json") {
      std::cout << schedule_to_json(runs, summary);
    } else if (o.format == "csv") {
      std::cout << schedule_to_csv(runs);
    } else {
      std::cout << "policy " << o.policy << " on " << nodes << " nodes\n" << schedule_to_table(runs, summary);
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

#include "driver/schedule_run.h"

#include <filesystem>
#include <memory>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "models/platform/cluster_config.h"
#include "workloads/scheduling/job_list.h"
#include "workloads/scheduling/node_leaves.h"
#include "workloads/scheduling/partition_nodes.h"
#include "workloads/scheduling/partition_training_timers.h"
#include "workloads/scheduling/queue_setup.h"
#include "workloads/scheduling/swf_trace.h"

namespace hpcsim {

ScheduleRun run_schedule(const ScheduleRequest& o, const SpecCatalog& catalog,
                         const std::function<void(const std::string&)>& note,
                         const std::function<void(std::size_t, std::size_t)>& timed,
                         const std::function<void(std::size_t, std::size_t)>& ended) {
  const std::optional<QueuePolicy> policy = kQueuePolicyNames.parse(o.policy);
  if (!policy) throw ScheduleInputError("--policy " + o.policy + ": give fcfs, easy, conservative or priority");
  if (!o.nodes && o.cluster.empty()) throw ScheduleInputError("give the machine with --nodes N or --cluster FILE");
  int nodes = 0;
  std::optional<ClusterConfig> cluster;
  if (o.nodes) {
    nodes = *o.nodes;
    check_count(CountLimit::nodes, nodes, SourceLoc{"--nodes " + std::to_string(nodes)}, "the machine");
  } else {
    cluster = parse_cluster(load_config(o.cluster, {}).at("cluster"), catalog);
    nodes = cluster->nodes;
  }
  std::vector<BatchJob> jobs;
  std::int64_t skipped = 0;
  std::int64_t swf_unrunnable = 0;  // trace lines skipped without a note
  QueueSetup setup;
  setup.nodes = nodes;
  if (cluster) setup.node_leaf = node_leaves(*cluster);
  std::unique_ptr<PartitionTrainingTimers> timer;  // training jobs' run times on their nodes
  if (std::filesystem::path(o.jobs).extension() == ".swf") {
    SwfOptions swf;
    swf.machine_nodes = nodes;
    swf.cores_per_node = o.cores_per_node;
    swf.max_jobs = o.max_jobs;
    SwfTrace trace = load_swf(o.jobs, swf);
    jobs = std::move(trace.jobs);
    skipped = trace.skipped;
    swf_unrunnable = trace.skipped - trace.skipped_too_large;
    if (trace.skipped_too_large > 0 && note) {
      note(std::to_string(trace.skipped_too_large) + " job(s) need more than the " + std::to_string(nodes) +
           " nodes and were skipped");
    }
    for (const std::int64_t user : trace.users) setup.accounts.push_back(Account{"user " + std::to_string(user), 1});
  } else {
    const JobList list = parse_job_list(load_config(o.jobs, {}));
    if (!cluster) refuse_partition_nodes(list);
    if (!list.training.empty() && !cluster) {
      throw ConfigError(list.training.front().where,
                        "training jobs run on a cluster: give it with --cluster FILE, not --nodes");
    }
    setup = resolve_queue_setup(queue_setup(list, nodes, setup.node_leaf));
    // Per partition, the cluster its node type makes (and what one of its nodes offers a job).
    std::vector<ClusterConfig> clusters;
    if (cluster) clusters = partition_clusters(list, *cluster, setup.node_leaf, catalog);
    if (!list.training.empty()) {
      std::vector<int> job_partition(list.training.size(), 0);
      for (const BatchJob& job : list.jobs) {
        if (job.kind >= 0) job_partition[static_cast<std::size_t>(job.kind)] = job.partition;
      }
      timer = std::make_unique<PartitionTrainingTimers>(clusters, catalog, list.training, job_partition,
                                                        [&](std::size_t done, std::size_t total) {
                                                          if (timed) timed(done, total);
                                                        });
    }
    // A job no partition can run is skipped with its reason and counted, as a trace's are.
    for (BatchJob job : list.jobs) {
      if (o.cores_per_node > 0 && job.kind < 0) {  // in 64 bits: --cores-per-node 2^31-1 overflowed an int
        job.nodes = static_cast<int>((std::int64_t{job.nodes} + o.cores_per_node - 1) / o.cores_per_node);
      }
      if (job.estimate_only) job.estimate_s = timer->estimate_s(job.kind);
      const MachineNodes machine =
          clusters.empty() ? MachineNodes{} : machine_nodes(clusters[static_cast<std::size_t>(job.partition)]);
      std::string why = fit_to_nodes(job, machine);
      if (why.empty()) why = job_refusal(job, setup);
      if (!why.empty()) {
        if (note) note("job " + std::to_string(job.id) + " " + why + ": skipped");
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
  ScheduleRun out;
  out.runs = simulate_batch_queue(jobs, setup, *policy, timer ? timer->hook() : RunTimeHook{}, ended);
  out.summary = summarize_schedule(out.runs, skipped, nodes);
  out.nodes = nodes;
  for (const Partition& p : resolve_queue_setup(setup).partitions) out.partitions.push_back(p.name);
  return out;
}

}  // namespace hpcsim

// The what-if of examples/scheduling: the same training jobs through an EASY-backfilling queue on one
// cluster with HDR InfiniBand and with 100 Gb Ethernet. Hidden (run it with "[whatif]"): it simulates
// every distinct job shape on a 32-node platform, reading the job list as `hpcsim schedule` does, and prints
// every job's placement and times behind the example's figures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/scheduling/batch_queue.h"
#include "workloads/scheduling/job_list.h"
#include "workloads/scheduling/training_job_timer.h"

using namespace hpcsim;

namespace {

struct Summary {
  double mean_wait_s = 0, max_wait_s = 0, makespan_s = 0, utilization = 0, mean_run_s = 0;
  int killed = 0, simulations = 0;
  double wall_s = 0;
};

Summary run_queue(const std::string& cluster_file, const ConfigNode& list, QueuePolicy policy) {
  const auto t0 = std::chrono::steady_clock::now();
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ClusterConfig cluster = parse_cluster(load_config(cluster_file, {}).at("cluster"), catalog);
  // The job list as `hpcsim schedule` reads it; a job without a time limit plans with its compact placement.
  JobList jobs = parse_job_list(list);
  TrainingJobTimer timer(cluster, catalog, jobs.training);
  for (BatchJob& job : jobs.jobs) {
    if (job.estimate_only) job.estimate_s = timer.estimate_s(job.kind);
  }
  const QueueSetup setup = queue_setup(jobs, cluster.nodes, timer.node_leaf());
  const std::vector<QueueRun> runs = simulate_batch_queue(jobs.jobs, setup, policy, timer.hook());
  Summary s;
  double first = runs.front().scheduled.job.submit_s, last = 0, busy = 0;
  for (const QueueRun& r : runs) {
    const ScheduledJob& j = r.scheduled;
    s.mean_wait_s += j.wait_s() / static_cast<double>(runs.size());
    s.max_wait_s = std::max(s.max_wait_s, j.wait_s());
    s.mean_run_s += (j.end_s - j.start_s) / static_cast<double>(runs.size());
    s.killed += j.killed;
    first = std::min(first, j.job.submit_s);
    last = std::max(last, j.end_s);
    busy += (j.end_s - j.start_s) * j.job.nodes;
    std::printf("  job %3lld  nodes %2d  leaves %zu  submit %7.2f h  wait %6.2f h  run %6.2f h  limit %6.2f h%s\n",
                static_cast<long long>(j.job.id), j.job.nodes, timer.shapes().key(r.node_ids).size(),
                j.job.submit_s / 3600, j.wait_s() / 3600, (j.end_s - j.start_s) / 3600, j.job.estimate_s / 3600,
                j.killed ? "  KILLED" : "");
  }
  s.makespan_s = last - first;
  s.utilization = busy / (cluster.nodes * s.makespan_s);
  s.simulations = timer.simulations();
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace

TEST_CASE("What-if: the example's training jobs on InfiniBand and on Ethernet", "[.][whatif]") {
  const std::string dir = std::string(HPCSIM_SOURCE_DIR) + "/examples/scheduling/";
  const ConfigNode list = load_config(dir + "jobs.yaml", {});
  for (QueuePolicy policy : {QueuePolicy::easy, QueuePolicy::fcfs}) {
    for (const char* network : {"ib", "eth"}) {
      std::printf("%s, %s:\n", network, std::string(kQueuePolicyNames.name(policy)).c_str());
      const Summary s = run_queue(dir + "cluster-" + network + ".yaml", list, policy);
      std::printf("%s %s: mean wait %.2f h, max wait %.2f h, mean run %.2f h, makespan %.2f h, utilization %.3f, "
                  "killed %d, step simulations %d, wall %.1f s\n\n",
                  network, std::string(kQueuePolicyNames.name(policy)).c_str(), s.mean_wait_s / 3600,
                  s.max_wait_s / 3600, s.mean_run_s / 3600, s.makespan_s / 3600, s.utilization, s.killed,
                  s.simulations, s.wall_s);
      CHECK(s.makespan_s > 0);
    }
  }
}

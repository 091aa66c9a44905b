// The queue's rules beyond backfilling: multifactor priority (fair share with decay, QoS), partitions with
// their own nodes and limits, topology-aware placement, and jobs submitted by a driver as others end.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "batch_queue_checks.h"
#include "workloads/scheduling/batch_queue.h"
#include "workloads/scheduling/queue_setup.h"

using namespace hpcsim;
using namespace hpcsim::test;

namespace {

BatchJob in_account(BatchJob j, int account, int qos = 0) {
  j.account = account;
  j.qos = qos;
  return j;
}

QueueSetup two_accounts(int nodes) {
  QueueSetup setup;
  setup.nodes = nodes;
  setup.accounts = {Account{"a", 1}, Account{"b", 1}};
  setup.qos = {QosLevel{"normal", 0}, QosLevel{"high", 100}};
  setup.weights.age = 0;
  setup.weights.size = 0;
  setup.weights.usage_half_life_s = 1e9;  // next to no decay in 100 s
  return setup;
}

}  // namespace

TEST_CASE("Priority: the account that used less goes first, where submit order would not", "[scheduling][priority]") {
  // 2 nodes. J1 (account a, 2 nodes, 100 s) runs 0-100, so a has used ~200 node-seconds when J2 (a) and J3
  // (b) wait for it (both submitted at 10, J2 first). Fair share: a gets 2^-(1/0.5) = 0.25, b 2^0 = 1, so
  // at 100 J3 runs 100-110 and J2 110-120. EASY keeps submit order: J2 100-110, J3 110-120.
  const QueueSetup setup = two_accounts(2);
  const std::vector<BatchJob> jobs = {in_account(job(1, 0, 2, 100, 100), 0), in_account(job(2, 10, 2, 10, 10), 0),
                                      in_account(job(3, 10, 2, 10, 10), 1)};
  CHECK(times(simulate_batch_queue(jobs, setup, QueuePolicy::priority)) == Times{{0, 100}, {110, 120}, {100, 110}});
  CHECK(times(simulate_batch_queue(jobs, setup, QueuePolicy::easy)) == Times{{0, 100}, {100, 110}, {110, 120}});
}

TEST_CASE("Priority: usage decays with its half-life", "[scheduling][priority]") {
  // As above, but J2 and J3 arrive long after J1 (10 half-lives of 100 s): a's usage has decayed to a
  // thousandth of what it was, yet b's is 0, so b still goes first; with J4 of account b having run
  // recently instead, a goes first.
  QueueSetup setup = two_accounts(2);
  setup.weights.usage_half_life_s = 100;
  const std::vector<BatchJob> jobs = {in_account(job(1, 0, 2, 100, 100), 0), in_account(job(4, 1000, 2, 50, 50), 1),
                                      in_account(job(2, 1010, 2, 10, 10), 0), in_account(job(3, 1010, 2, 10, 10), 1)};
  // At 1050 J4 (b, 100 node-s, recent) ends; a's 200 node-s are ~10.5 half-lives old: a is first.
  CHECK(times(simulate_batch_queue(jobs, setup, QueuePolicy::priority)) ==
        Times{{0, 100}, {1000, 1050}, {1050, 1060}, {1060, 1070}});
}

TEST_CASE("Priority: a higher QoS jumps the queue", "[scheduling][priority]") {
  const QueueSetup setup = two_accounts(2);
  const std::vector<BatchJob> jobs = {in_account(job(1, 0, 2, 100, 100), 0), in_account(job(2, 10, 2, 10, 10), 0, 0),
                                      in_account(job(3, 20, 2, 10, 10), 0, 1)};
  CHECK(times(simulate_batch_queue(jobs, setup, QueuePolicy::priority)) == Times{{0, 100}, {110, 120}, {100, 110}});
}

TEST_CASE("Partitions run on their own nodes and refuse what exceeds their limits", "[scheduling][partitions]") {
  QueueSetup setup;
  setup.nodes = 6;
  setup.partitions = {Partition{"short", 0, 2, 50, 0}, Partition{"long", 2, 4, 1e6, 2}};
  // Both partitions are full at once: each job waits only for its own partition.
  std::vector<BatchJob> jobs = {job(1, 0, 2, 30, 40), job(2, 0, 2, 30, 30), job(3, 0, 2, 30, 30), job(4, 0, 2, 30, 30)};
  jobs[1].partition = 1;
  jobs[2].partition = 1;
  jobs[3].partition = 0;
  const std::vector<QueueRun> runs = simulate_batch_queue(jobs, setup, QueuePolicy::easy);
  CHECK(times(runs) == Times{{0, 30}, {0, 30}, {0, 30}, {30, 60}});
  check_invariants(runs, 6, setup.partitions);
  const QueueSetup resolved = resolve_queue_setup(setup);
  BatchJob too_long = job(5, 0, 1, 10, 60);
  INFO(job_refusal(too_long, resolved));
  CHECK(job_refusal(too_long, resolved).find("partition short allows 50 s") != std::string::npos);
  BatchJob too_wide = job(6, 0, 3, 10, 10);
  too_wide.partition = 1;
  CHECK(job_refusal(too_wide, resolved).find("partition long allows 1 to 2") != std::string::npos);
  too_wide.partition = 2;
  CHECK(job_refusal(too_wide, resolved) == "unknown partition");
  CHECK_THROWS_WITH(simulate_batch_queue({too_long}, setup, QueuePolicy::fcfs), Catch::Contains("job 5 asks for"));
  setup.partitions.push_back(Partition{"overlap", 5, 1});
  CHECK_THROWS_WITH(resolve_queue_setup(setup), Catch::Contains("share nodes"));
}

TEST_CASE("A multi-node job is placed under as few leaf switches as possible", "[scheduling][nodes]") {
  QueueSetup setup;
  setup.nodes = 8;
  setup.node_leaf = {0, 0, 0, 0, 1, 1, 1, 1};
  // J1 takes 1 node (leaf 0). J2 (4 nodes) fits leaf 1 whole rather than leaf 0's 3 + 1.
  const std::vector<QueueRun> runs =
      simulate_batch_queue({job(1, 0, 1, 100, 100), job(2, 1, 4, 100, 100), job(3, 2, 3, 100, 100)}, setup, QueuePolicy::fcfs);
  CHECK(runs[0].node_ids == std::vector<int>{0});
  CHECK(runs[1].node_ids == std::vector<int>{4, 5, 6, 7});
  CHECK(runs[2].node_ids == std::vector<int>{1, 2, 3});
}

TEST_CASE("A driver submits jobs as others end, and training jobs get their run time on their nodes", "[scheduling]") {
  Simulator sim;
  QueueSetup setup;
  setup.nodes = 4;
  // A "training" job runs 10 s per node it does not get of 4 plus 10 s: on 4 nodes 10 s.
  RunTimeHook hook = [](const BatchJob& j, const std::vector<int>& nodes) {
    return 10.0 + 10.0 * (4 - static_cast<int>(nodes.size())) + (j.kind == 1 ? 5 : 0);
  };
  BatchScheduler queue(sim, setup, QueuePolicy::easy, hook);
  int chained = 0;
  queue.on_end([&](std::size_t, const QueueRun& run) {
    if (chained++ < 2) {
      BatchJob next = job(run.scheduled.job.id + 1, 0, 2, 0, 100);
      next.kind = 1;
      queue.submit(next);
    }
  });
  BatchJob first = job(1, 0, 4, 0, 100);
  first.kind = 0;
  queue.submit_at(first);
  sim.run();
  const std::vector<QueueRun> runs = queue.take_runs();
  // 0-10 on 4 nodes; then 2 nodes, 10 + 20 + 5 = 35 s each: 10-45, 45-80.
  CHECK(times(runs) == Times{{0, 10}, {10, 45}, {45, 80}});
  CHECK(runs[2].scheduled.job.submit_s == 45);
  check_invariants(runs, 4);
  BatchJob without_model = job(9, 0, 1, 0, 10);
  without_model.kind = 0;
  Simulator other;
  BatchScheduler plain(other, setup, QueuePolicy::easy);
  CHECK(plain.check(without_model).find("no run-time model") != std::string::npos);
}

TEST_CASE("Random traces with partitions, accounts, QoS and leaves keep the invariants under every policy",
          "[scheduling][priority][partitions]") {
  std::mt19937_64 rng(21);
  int preempted = 0;
  for (int trace = 0; trace < 12; ++trace) {
    QueueSetup setup;
    setup.nodes = 24;
    for (int n = 0; n < 24; ++n) setup.node_leaf.push_back(n / 6);
    setup.partitions = {Partition{"a", 0, 8}, Partition{"b", 8, 16, 1e9, 12}};
    setup.accounts = {Account{"x", 1}, Account{"y", 3}, Account{"z", 1}};
    setup.qos = {QosLevel{"normal", 0, {}}, QosLevel{"high", 10, {0}}};
    setup.weights.usage_half_life_s = 500;
    setup.preempt_mode = trace % 2 == 0 ? PreemptMode::requeue : PreemptMode::cancel;
    std::vector<BatchJob> jobs;
    double submit = 0;
    for (int i = 0; i < 200; ++i) {
      submit += static_cast<double>(rng() % 20);
      const double run = 1 + static_cast<double>(rng() % 300);
      BatchJob j = job(i + 1, submit, 1, run, rng() % 6 == 0 ? run / 2 : run + static_cast<double>(rng() % 200));
      j.partition = static_cast<int>(rng() % 2);
      j.nodes = 1 + static_cast<int>(rng() % (j.partition == 0 ? 8 : 12));
      j.account = static_cast<int>(rng() % 3);
      j.qos = static_cast<int>(rng() % 2);
      jobs.push_back(j);
    }
    for (const QueuePolicy policy : {QueuePolicy::fcfs, QueuePolicy::easy, QueuePolicy::conservative, QueuePolicy::priority}) {
      INFO("trace " << trace << " policy " << kQueuePolicyNames.name(policy));
      const std::vector<QueueRun> runs = simulate_batch_queue(jobs, setup, policy);
      check_invariants(runs, 24, setup.partitions);
      if (policy == QueuePolicy::easy || policy == QueuePolicy::conservative) {
        for (const QueueRun& r : runs) {
          if (r.reservation_s) REQUIRE(r.scheduled.start_s <= *r.reservation_s);
        }
      }
      for (const QueueRun& r : runs) {
        if (r.scheduled.killed) REQUIRE(r.scheduled.end_s == r.scheduled.start_s + r.scheduled.job.estimate_s);
        preempted += static_cast<int>(r.requeued_runs.size()) + (r.cancelled ? 1 : 0);
        if (policy != QueuePolicy::priority) REQUIRE((r.requeued_runs.empty() && !r.cancelled));
      }
    }
  }
  CHECK(preempted > 0);  // preemption was exercised
}

TEST_CASE("Preemption: a high-QoS job stops the most recent low-QoS jobs it needs, which run again later",
          "[scheduling][priority][preemption]") {
  // 4 nodes. J1 (normal, 2 nodes) starts at 0, J2 (normal, 2 nodes) at 5. At 10 J3 (high, preempts normal,
  // 2 nodes) arrives: the queue is full, so it stops J2 (started last) and runs 10-30. J2 goes back to the
  // queue and runs again from the start when J3 ends: 30-130 (requeue); with cancel it ends at 10.
  QueueSetup setup = two_accounts(4);
  setup.qos[1].preempts = {0};
  std::vector<BatchJob> jobs = {job(1, 0, 2, 100, 100), job(2, 5, 2, 100, 100), job(3, 10, 2, 20, 20)};
  jobs[2].qos = 1;
  std::vector<QueueRun> runs = simulate_batch_queue(jobs, setup, QueuePolicy::priority);
  CHECK(times(runs) == Times{{0, 100}, {30, 130}, {10, 30}});
  REQUIRE(runs[1].requeued_runs.size() == 1);
  CHECK(runs[1].requeued_runs[0].start_s == 5);
  CHECK(runs[1].requeued_runs[0].end_s == 10);
  CHECK(runs[2].node_ids == runs[1].requeued_runs[0].node_ids);  // J3 took J2's nodes
  setup.preempt_mode = PreemptMode::cancel;
  runs = simulate_batch_queue(jobs, setup, QueuePolicy::priority);
  CHECK(times(runs) == Times{{0, 100}, {5, 10}, {10, 30}});
  CHECK(runs[1].cancelled);
  // Without the right to preempt, J3 waits for J1.
  setup.qos[1].preempts.clear();
  CHECK(times(simulate_batch_queue(jobs, setup, QueuePolicy::priority)) == Times{{0, 100}, {5, 105}, {100, 120}});
}

TEST_CASE("A job without a wall-time limit is planned with its estimate and never killed", "[scheduling]") {
  QueueSetup setup;
  setup.nodes = 2;
  RunTimeHook hook = [](const BatchJob&, const std::vector<int>&) { return 50.0; };
  BatchJob planned = job(1, 0, 2, 0, 30);  // planned for 30 s, runs 50 s
  planned.kind = 0;
  planned.estimate_only = true;
  BatchJob limited = planned;  // the same with a 30 s limit: killed at it
  limited.id = 2;
  limited.submit_s = 100;
  limited.estimate_only = false;
  const std::vector<QueueRun> runs = simulate_batch_queue({planned, limited}, setup, QueuePolicy::easy, hook);
  CHECK(times(runs) == Times{{0, 50}, {100, 130}});
  CHECK_FALSE(runs[0].scheduled.killed);
  CHECK(runs[0].scheduled.job.estimate_s == 50);  // raised to the run time at start, as a trace's
  CHECK(runs[1].scheduled.killed);
}

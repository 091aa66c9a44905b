#pragma once
// Jobs from a YAML job list, with the queue's tables:
//   partitions:                 # optional; each takes the next `nodes` nodes from node 0 up
//     - {name: batch, nodes: 24, max_time: 2 d, max_nodes: 16}
//     - {name: debug, nodes: 8, max_time: 1 h, node: dgx-h100}   # node: its nodes' type (partition_nodes.h)
//   qos: [{name: normal, priority: 0}, {name: high, priority: 100, preempt: [normal]}]  # optional
//   preempt_mode: requeue       # or cancel: what preemption does to a job (priority policy only)
//   accounts: [{name: physics, shares: 2}, {name: chemistry, shares: 1}] # optional
//   priority: {age: 1000, age_max: 7 d, size: 1000, fairshare: 10000, qos: 1000, half_life: 7 d}
//   jobs:
//     - {id: 1, submit: 0 s, nodes: 2, run: 1 h, time_limit: 2 h, partition: batch, account: physics,
//        qos: high, priority: 0, memory: 64 GiB}
//     - {id: 2, submit: 5 min, gpus: 12, run: 3 h}    # whole nodes: ceil(12 / GPUs per node) of them
//     - {id: 3, submit: 1 h, nodes: 4, training: {workload: {...}, parallelism: {...}, steps: 20000}}
// A job gives its run time (`run`) or what it trains (`training`, training_job.h: its run time is hpcsim's
// prediction on the nodes it gets). A training job without a time_limit is planned with its predicted time
// on a compact placement and never killed.
// id defaults to the position (from 1), time_limit to the run time (a job running past its limit is
// killed at it), partition to the first, account to "default", qos to "normal" (or the first level).
// Without an accounts table every account a job names has one share; with one, an unknown account is an
// error, as an unknown partition or QoS always is. Jobs come back in queue order (submit time, then id).
// Bad keys and values are ConfigErrors at their place.
#include <optional>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "workloads/scheduling/batch_job.h"
#include "workloads/scheduling/queue_setup.h"
#include "workloads/scheduling/training_job.h"

namespace hpcsim {

struct JobList {
  std::vector<BatchJob> jobs;
  std::vector<Partition> partitions;  // first_node assigned in order; empty: one partition of the machine
  SourceLoc partitions_loc;
  // Per partition, its `node` as written (a name in configs/nodes), or none: the cluster's node type.
  std::vector<std::optional<ConfigNode>> partition_nodes;
  std::vector<QosLevel> qos;
  std::vector<Account> accounts;
  PriorityWeights weights;
  PreemptMode preempt_mode = PreemptMode::requeue;
  std::vector<TrainingJobSpec> training;  // a training job's kind indexes this
};

const Schema& job_list_schema();
JobList parse_job_list(const ConfigNode& root);

// What a node of the machine offers a job (0: unknown, not checked).
struct MachineNodes {
  int gpus_per_node = 0;
  double memory_bytes = 0;
  std::string node;  // the node type's name, when the machine is a described cluster
};
// Turns a request for GPUs into whole nodes; returns why the machine cannot run the job (GPUs without
// a GPU machine, more memory per node than a node has), or empty.
std::string fit_to_nodes(BatchJob& job, const MachineNodes& machine);
// The queue for `nodes` nodes (leaf of each node, or empty) with the list's tables; a ConfigError at the
// partitions when they need more nodes than there are.
QueueSetup queue_setup(const JobList& list, int nodes, std::vector<int> node_leaf = {});

}  // namespace hpcsim

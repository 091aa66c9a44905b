#pragma once
// What a batch queue runs on and by which rules: its nodes (grouped by leaf switch for topology-aware
// allocation), partitions with their own nodes and limits, QoS levels, accounts with fair-share shares and
// the weights of the multifactor priority (SLURM's priority/multifactor).
#include <limits>
#include <string>
#include <vector>

#include "workloads/scheduling/batch_job.h"

namespace hpcsim {

struct Partition {
  std::string name = "all";
  int first_node = 0;  // its nodes are [first_node, first_node + nodes): partitions do not overlap
  int nodes = 0;
  double max_time_s = std::numeric_limits<double>::infinity();  // longer wall-time limits are refused
  int max_nodes = 0;                                            // 0: the partition's size
};

struct QosLevel {
  std::string name = "normal";
  double priority = 0;  // normalized by the largest QoS priority in the priority's QoS factor
  // Under the priority policy, a job of this QoS that cannot start may stop running jobs of these levels
  // (indices into the QoS table), as SLURM's preempt/qos does.
  std::vector<int> preempts;
};

// What happens to a preempted job: back to the queue to run again from the start (SLURM's REQUEUE), or
// ended for good (CANCEL).
enum class PreemptMode { requeue, cancel };

struct Account {
  std::string name = "default";
  double shares = 1;
};

// priority = age x min(wait / age_max, 1) + size x nodes / partition nodes
//          + fairshare x 2^(-usage share / shares share) + qos x qos priority / max qos priority + job priority,
// where an account's usage is node-seconds decayed with a half-life (continuously, running jobs included).
struct PriorityWeights {
  double age = 1000;
  double age_max_s = 7 * 86400.0;
  double size = 1000;
  double fairshare = 10000;
  double qos = 1000;
  double usage_half_life_s = 7 * 86400.0;
};

struct QueueSetup {
  int nodes = 0;
  // Leaf switch of each node (empty: one switch). A multi-node job goes under as few leaves as possible.
  std::vector<int> node_leaf;
  std::vector<Partition> partitions;  // empty: one partition "all" of every node
  std::vector<QosLevel> qos;          // empty: one level "normal"
  std::vector<Account> accounts;      // empty: one account "default"
  PriorityWeights weights;
  PreemptMode preempt_mode = PreemptMode::requeue;
};

// The setup with its defaults filled in (one partition of every node, one QoS, one account);
// std::invalid_argument for no nodes, a leaf list of another length, partitions outside the nodes or
// sharing nodes.
QueueSetup resolve_queue_setup(QueueSetup setup);
// Why a resolved setup can never run the job (unknown partition, account or QoS; more nodes or a longer
// wall-time limit than its partition allows; no positive limit or run time), or empty when it can.
std::string job_refusal(const BatchJob& job, const QueueSetup& setup);

}  // namespace hpcsim

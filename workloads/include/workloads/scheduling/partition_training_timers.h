#pragma once
// Run times of a job list's training jobs on a machine whose partitions may hold different node types
// (partition_nodes.h): one TrainingJobTimer per distinct node type, on the whole cluster with that node
// type, timing the training jobs of the partitions of that type. Node ids are the machine's in every timer.
// A job is timed alone on its nodes, so the other partitions' nodes, whatever their type, carry none of its
// traffic: the step is the one a cluster of the partition's type gives on those nodes.
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "configs/catalog.h"
#include "models/platform/cluster_config.h"
#include "workloads/scheduling/batch_queue.h"
#include "workloads/scheduling/training_job.h"
#include "workloads/scheduling/training_job_timer.h"

namespace hpcsim {

class PartitionTrainingTimers {
 public:
  // clusters: per partition, as partition_clusters gives them; job_partition[k]: the partition of training
  // job k (jobs[k]). ConfigError at the job as TrainingJobTimer's (a model that does not fit in the
  // partition's GPUs, a precision its GPU lacks), and at the job for a partition whose node has no GPUs.
  // after_each(done, total) counts over every job.
  PartitionTrainingTimers(const std::vector<ClusterConfig>& clusters, const SpecCatalog& catalog,
                          const std::vector<TrainingJobSpec>& jobs, const std::vector<int>& job_partition,
                          const std::function<void(std::size_t, std::size_t)>& after_each = {});
  ~PartitionTrainingTimers();
  PartitionTrainingTimers(const PartitionTrainingTimers&) = delete;
  PartitionTrainingTimers& operator=(const PartitionTrainingTimers&) = delete;

  // Distinct node types timed (one TrainingJobTimer each).
  int timers() const { return static_cast<int>(timers_.size()); }
  // The timer that times job `kind`, and the job's kind in it.
  TrainingJobTimer& timer_of(int kind);
  int kind_in_timer(int kind) const { return at(kind).second; }

  double run_s(int kind, const std::vector<int>& node_ids);
  double estimate_s(int kind);  // as TrainingJobTimer::estimate_s, on the job's node type
  RunTimeHook hook();           // run_s(job.kind, nodes)
  int simulations() const;      // over every timer

 private:
  const std::pair<int, int>& at(int kind) const;
  std::vector<std::unique_ptr<TrainingJobTimer>> timers_;
  std::vector<std::pair<int, int>> where_;  // per job: (timer, kind in that timer)
};

}  // namespace hpcsim

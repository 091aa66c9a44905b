#pragma once
// Run times of a batch queue's training jobs (training_job.h) on the nodes the queue gives them: steps x
// the step time hpcsim simulates with the job alone on those nodes of the whole cluster's platform, so its
// data-parallel rings cross the leaf uplinks its placement crosses, at the cluster's network speed. A
// different network, topology or node type changes the run times, and through them the queue.
//
// Data parallelism follows the job's GPUs (every GPU of its nodes, unless its parallelism sets dp), as
// `hpcsim run` does for a scenario on a cluster of the job's size. Step times are memoized by placement
// shape (placement_shape.h): one simulation per distinct (workload, parallelism, node count, shape).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "configs/catalog.h"
#include "models/platform/cluster_config.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scheduling/batch_queue.h"
#include "workloads/scheduling/placement_shape.h"
#include "workloads/scheduling/training_job.h"
#include "workloads/training/model_training_step.h"
#include "workloads/training/training_step_config.h"

namespace hpcsim {

class TrainingJobTimer {
 public:
  // Reads each job against the cluster and times it once on its compact placement. ConfigError at the
  // job's place in its YAML for anything its scenario would be refused for (an unknown model, a layout
  // its GPUs do not divide into, a precision the GPU lacks), for more nodes than the cluster has, a
  // dataset or sequence-length mix (not modelled in a queue), a model that does not fit in GPU memory,
  // or a step the simulator refuses.
  // after_each(done, total): called after each job is checked (and, when new, timed), for a progress line.
  TrainingJobTimer(ClusterConfig cluster, const SpecCatalog& catalog, const std::vector<TrainingJobSpec>& jobs,
                   const std::function<void(std::size_t, std::size_t)>& after_each = {});
  ~TrainingJobTimer();
  TrainingJobTimer(const TrainingJobTimer&) = delete;
  TrainingJobTimer& operator=(const TrainingJobTimer&) = delete;

  int kinds() const { return static_cast<int>(kinds_.size()); }
  const std::vector<int>& node_leaf() const { return shapes_.node_leaf(); }
  const PlacementShapes& shapes() const { return shapes_; }

  // One step of job `kind` on these nodes (as many as it asked for; std::invalid_argument otherwise).
  double step_s(int kind, const std::vector<int>& node_ids);
  // steps x step_s: the job's run time on these nodes.
  double run_s(int kind, const std::vector<int>& node_ids);
  // The run time on the placement the allocator gives it on an empty cluster (compact()): the plan for a
  // job given no time limit. As a limit it is tight: a placement over more leaves may run longer and be
  // killed at it, so a driver that uses it as the wall-time limit may want to pad it.
  double estimate_s(int kind);
  // The queue's hook: run_s(job.kind, nodes).
  RunTimeHook hook();
  // Step simulations run so far (memo misses).
  int simulations() const { return simulations_; }

 private:
  struct Workload;  // one distinct (workload, parallelism, nodes): its scenario, model and run
  struct Kind {
    int workload = 0;
    std::int64_t steps = 1;
  };
  TrainingStepReport simulate(const Workload& w, const std::vector<int>& nodes);
  const Kind& kind(int k) const;

  ClusterConfig cluster_;
  PlacementShapes shapes_;
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::vector<Kind> kinds_;
  std::map<std::pair<int, std::vector<int>>, double> step_memo_;  // (workload, shape key) -> step time
  int simulations_ = 0;
};

}  // namespace hpcsim

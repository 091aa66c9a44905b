#pragma once
// The training step's planner: layer and stage costs, the data-parallel groups, the execution graph and
// memory, into a TrainingStepPlan (training_step_plan.h). Private to the training step; its methods are
// spread by topic over step_layout.cpp (the layout, the stage cut), step_costs.cpp (stages, transfers,
// buckets, the optimizer, memory), step_graph.cpp and gan_step.cpp (the graphs) and step_planner.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "layer_costs.h"
#include "models/collectives/isolated_collectives.h"
#include "models/platform/platform.h"
#include "sim-core/execution_graph.h"
#include "workloads/training/training_step_plan.h"

namespace hpcsim::training_detail {

using enum TrainingStepPlan::OpKind;
using enum TrainingStepPlan::Tag;

// The run's layout with dp resolved (0: every GPU the model-parallel degrees leave); std::invalid_argument
// for degrees below 1 or more GPUs than the cluster has.
ParallelLayout make_layout(const ClusterConfig& cluster, const TrainingStepConfig& run);

// Contiguous cut of the layers into `parts` runs of about equal forward + backward time, never in front of a
// loss (cut points, parts + 1).
std::vector<std::size_t> partition_by_time(const std::vector<LayerCost>& costs, int parts);

// A run of layers whose parameters are gathered (ZeRO-3) or whose gradients are reduced together.
struct Bucket {
  std::size_t first, last;  // layers
  double params;
};

// Iterations in one step of a GAN recipe: the lazy-regularization cycle (both regularizers fall on the
// same iteration once per cycle), one without regularization.
int gan_iterations(const GanRecipe& g);

class StepPlanner {
 public:
  // GPU numbers are the job's; `placement` maps them to the cluster's, where every fabric is built.
  StepPlanner(const Model& model, JobPlacement placement, const TrainingStepConfig& run);
  StepPlanner(const StepPlanner&) = delete;
  StepPlanner& operator=(const StepPlanner&) = delete;

  // Costs, groups, the graph, memory and FLOPs: the whole plan (once; the planner is spent after).
  TrainingStepPlan plan() &&;
  // The layer costs and the stage cut only, without the tensor- and context-parallel collectives (they
  // change neither), and the memory of the stage that needs the most: what plan() gives as plan.memory.
  TrainingMemory memory() &&;

 private:
  const Model& model_;
  const ClusterConfig cluster_;  // the job's view: its node count, for the layout (no fabric from it)
  const TrainingStepConfig& run_;
  const GpuSpec& gpu_;
  TrainingStepPlan plan_;  // filled as planning goes
  std::vector<LayerCost> costs_;
  std::optional<IsolatedCollectives> tp_, cp_;

  OpId fixed(std::string name, double seconds, StreamId stream, OpTag tag) {
    plan_.seconds.push_back(seconds);
    return plan_.graph.add_op(OpSpec{std::move(name), kFixedDuration, stream, plan_.seconds.size() - 1, tag, {}});
  }
  OpId collective(std::string name, CollectiveOp op, double bytes, int stage) {
    plan_.collectives.push_back({op, bytes, stage});
    return plan_.graph.add_op(OpSpec{std::move(name), kCollective, plan_.dp_stream(stage),
                                     plan_.collectives.size() - 1, kCommunicationTag, {}});
  }

  void cost_layers();  // costs_; std::invalid_argument for tp > 1 on a model with no tensor-parallel layer
  void cost_stages();
  void plan_groups();
  // Seconds to pass virtual stage v's output to stage v + 1 (the same back for its gradient), per v.
  std::vector<double> p2p_seconds();
  int nics_of_stage(const ClusterFabric& fabric, int stage) const;
  std::vector<Bucket> buckets(const StageCost& s, double bucket_bytes, bool by_unit) const;
  void build();
  void build_gan();
  void count_flops();
  bool is_gan() const { return model_.adversarial; }
  double optimizer_seconds(double params, std::int64_t tensors) const;
  double weight_cast_seconds(double weights) const;  // fp8 training: the once-per-step weight casts
  TrainingMemory stage_memory(int stage) const;
  TrainingMemory peak_memory() const;  // the stage that needs the most
};

}  // namespace hpcsim::training_detail

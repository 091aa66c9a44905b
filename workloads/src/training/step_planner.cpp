// Planning a training step: the planner's entry points, the step's FLOPs, and the plan's stream lanes.
#include "step_planner.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace hpcsim {

namespace training_detail {

StepPlanner::StepPlanner(const Model& model, JobPlacement placement, const TrainingStepConfig& run)
    : model_(model), cluster_(placement.job_view()), run_(run), gpu_(cluster_.node.gpu) {
  plan_.placement = std::move(placement);
  plan_.config = run;
  plan_.layout = make_layout(cluster_, run);
}

void StepPlanner::cost_layers() {
  costs_ = training_detail::layer_costs(model_, gpu_, run_);
  if (plan_.layout.tp > 1) {
    bool splits = false;
    for (const LayerCost& c : costs_) splits |= c.node->layer->tensor_split() != TensorSplit::none;
    if (!splits) {
      throw std::invalid_argument("tp " + std::to_string(plan_.layout.tp) + ": " + model_.name +
                                  " has no tensor-parallel layers (Megatron splits attention and MLP blocks)");
    }
  }
}

TrainingMemory StepPlanner::memory() && {
  cost_layers();
  cost_stages();  // without tp_ and cp_: their communication times are zero, the cut and the memory are the same
  return peak_memory();
}

TrainingMemory StepPlanner::peak_memory() const {
  TrainingMemory peak;
  for (int s = 0; s < plan_.layout.pp; ++s) {
    const TrainingMemory mem = stage_memory(s);
    if (mem.total() > peak.total()) peak = mem;
  }
  return peak;
}

TrainingStepPlan StepPlanner::plan() && {
  const ParallelLayout& layout = plan_.layout;
  cost_layers();
  if (layout.tp > 1) {
    std::vector<int> gpus;
    for (int r = 0; r < layout.tp; ++r) gpus.push_back(layout.gpu(0, 0, r, 0));
    tp_.emplace(plan_.placement.platform, plan_.placement.gpus(gpus));
  }
  if (layout.cp > 1) {
    std::vector<int> gpus;
    for (int c = 0; c < layout.cp; ++c) gpus.push_back(layout.gpu(0, 0, 0, c));
    cp_.emplace(plan_.placement.platform, plan_.placement.gpus(gpus));
  }
  cost_stages();
  plan_groups();
  build();
  count_flops();
  plan_.memory = peak_memory();
  return std::move(plan_);
}

void StepPlanner::count_flops() {
  const ParallelLayout& layout = plan_.layout;
  double forward_flops = 0;
  for (const StageCost& s : plan_.stages) forward_flops += s.forward_flops;
  const double model_parallel = layout.model_parallel();
  plan_.model_flops = 3 * forward_flops * run_.microbatches / model_parallel;
  plan_.samples_per_step = static_cast<double>(run_.micro_batch) * run_.microbatches * layout.dp;
  if (is_gan()) {
    // Forward-FLOP units per microbatch and iteration: each discriminator update G_f + 2 (D_f + 2 D_f),
    // the generator update G_f + D_f + D_f (input gradient) + 2 G_f; path length (at the shrunk batch)
    // and R1 each a forward, a data gradient and a double backward, 2 (F + 2F). A step is a cycle of
    // gan_iterations(), each consuming d_steps batches of real images.
    double gf = 0, df = 0;
    for (const LayerCost& c : costs_) (c.network == 0 ? gf : df) += c.forward_flops;
    const GanRecipe& gan = run_.gan;
    const int iterations = gan_iterations(gan);
    double flops = iterations * (run_.d_steps * (gf + 6 * df) + 3 * gf + 2 * df);
    if (gan.pl_interval > 0) {
      const double shrunk = static_cast<double>(std::max<std::int64_t>(1, run_.micro_batch / std::max(1, gan.pl_batch_shrink)));
      flops += (iterations / gan.pl_interval) * 6 * gf * shrunk / static_cast<double>(run_.micro_batch);
    }
    if (gan.r1_interval > 0) flops += (iterations / gan.r1_interval) * 6 * df;
    plan_.model_flops = flops * run_.microbatches;
    plan_.samples_per_step *= run_.d_steps * iterations;
  }
  plan_.hardware_flops = plan_.model_flops * (run_.recompute == Recompute::full ? 4.0 / 3.0 : 1.0);
  if (run_.recompute == Recompute::selective && !is_gan()) {
    double recomputed = 0;  // one core-attention forward per layer and microbatch
    for (const LayerCost& c : costs_) recomputed += c.recompute_flops;
    plan_.hardware_flops += recomputed * run_.microbatches / plan_.layout.model_parallel();
  }
}

}  // namespace training_detail

std::string TrainingStepPlan::lane(StreamId stream) const {
  const int s = static_cast<int>(stream), pp = layout.pp, V = layout.virtual_stages();
  if (s < pp) return "stage " + std::to_string(s) + " compute";
  if (s < 2 * pp) return "stage " + std::to_string(s - pp) + " data-parallel";
  const int v = (s - 2 * pp) % V;
  const bool forward = s - 2 * pp < V;
  return "p2p " + std::to_string(forward ? v : v + 1) + "->" + std::to_string(forward ? v + 1 : v) +
         (forward ? " activations" : " gradients");
}

TrainingStepPlan plan_training_step(const Model& model, JobPlacement placement, const TrainingStepConfig& config) {
  return training_detail::StepPlanner(model, std::move(placement), config).plan();
}

TrainingStepPlan plan_training_step(const Model& model, const ClusterConfig& cluster, const TrainingStepConfig& config) {
  std::vector<int> nodes(static_cast<std::size_t>(cluster.nodes));
  std::iota(nodes.begin(), nodes.end(), 0);
  return plan_training_step(model, JobPlacement{cluster, std::move(nodes)}, config);
}

}  // namespace hpcsim

#include "workloads/training/model_training_step.h"

#include "models/platform/platform.h"
#include "step_planner.h"
#include "workloads/training/training_step_job.h"

namespace hpcsim {

TrainingStepReport simulate_training_step(const Model& model, const ClusterConfig& cluster,
                                          const TrainingStepConfig& config, const StepProgress& progress) {
  Platform platform(cluster);
  const JobId job = platform.attach(model.name);
  TrainingStepJob step(platform, job, model, config);
  step.start();
  if (progress) {
    const Executor& executor = step.executor();
    platform.sim().set_watch(256, [&progress, &executor] { progress(executor.completed_count(), executor.graph().size()); });
  }
  platform.sim().run();
  if (!step.finished()) throw ExecutionError("the training step stalled: some op never completed");
  return step.report();
}

TrainingMemory training_step_memory(const Model& model, const ClusterConfig& cluster, const TrainingStepConfig& config) {
  Platform platform(cluster);  // placement only (and the same errors as a step): its fabric is never built
  const JobId job = platform.attach(model.name);
  return training_detail::StepPlanner(model, platform.placement(job), config).memory();
}

}  // namespace hpcsim

#pragma once
// One training step of a model as a job on a platform (models/platform/platform.h): the step is planned at
// construction (training_step_plan.h); start() runs the plan from the platform's current time, beside
// whatever else the platform runs, so its data-parallel collectives share links with other jobs' traffic.
#include <memory>

#include "models/platform/platform.h"
#include "sim-core/executor.h"
#include "workloads/layers/network.h"
#include "workloads/training/training_step_config.h"
#include "workloads/training/training_step_plan.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

namespace training_detail {
class StepExecution;
}

class TrainingStepJob {
 public:
  // The job must be attached to the platform; its nodes make the cluster the step sees. Errors as
  // simulate_training_step. The model must outlive the job.
  TrainingStepJob(Platform& platform, JobId job, const Model& model, const TrainingStepConfig& config);
  ~TrainingStepJob();
  TrainingStepJob(const TrainingStepJob&) = delete;
  TrainingStepJob& operator=(const TrainingStepJob&) = delete;

  // Releases the step's first ops at the platform's current time; the platform's simulator runs it.
  void start();
  bool finished() const;
  // The step's execution (after start()): a process can co_await its end through on_finished.
  Executor& executor();
  // The step's report once finished (std::logic_error before). `events` counts the platform's events.
  TrainingStepReport report() const;
  const TrainingStepPlan& plan() const { return plan_; }

 private:
  const Model& model_;
  TrainingStepPlan plan_;
  std::unique_ptr<training_detail::StepExecution> execution_;  // runs plan_
};

}  // namespace hpcsim

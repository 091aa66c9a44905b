#pragma once
// One training step of a model as a job on a platform (models/platform/platform.h): the step's costs and
// graph are built at construction; start() runs it from the platform's current time, beside whatever else
// the platform runs, so its data-parallel collectives share links with other jobs' traffic.
#include <memory>

#include "models/platform/platform.h"
#include "sim-core/executor.h"
#include "workloads/layers/network.h"
#include "workloads/training/model_training_step.h"
#include "workloads/training/training_run.h"

namespace hpcsim {

namespace training_detail {
class StepBuilder;
}

class TrainingStepJob {
 public:
  // The job must be attached to the platform; its nodes make the cluster the step sees. Errors as
  // simulate_training_step. The model and the run must outlive the job.
  TrainingStepJob(Platform& platform, JobId job, const Model& model, const TrainingRun& run);
  ~TrainingStepJob();
  TrainingStepJob(const TrainingStepJob&) = delete;
  TrainingStepJob& operator=(const TrainingStepJob&) = delete;

  // Releases the step's first ops at the platform's current time; the platform's simulator runs it.
  void start();
  bool finished() const;
  // The step's execution (after start()): a process can co_await its end through on_finished.
  Executor& executor();
  // The step's report once finished (std::logic_error before). `events` counts the platform's events.
  ModelStepReport report() const;

 private:
  Platform& platform_;
  JobId job_;
  const Model& model_;
  std::unique_ptr<training_detail::StepBuilder> builder_;
};

}  // namespace hpcsim

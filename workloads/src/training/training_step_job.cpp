#include "workloads/training/training_step_job.h"

#include <stdexcept>

#include "step_execution.h"

namespace hpcsim {

TrainingStepJob::TrainingStepJob(Platform& platform, JobId job, const Model& model, const TrainingStepConfig& config)
    : model_(model), plan_(plan_training_step(model, platform.placement(job), config)),
      execution_(std::make_unique<training_detail::StepExecution>(plan_, platform, job)) {}

TrainingStepJob::~TrainingStepJob() = default;

void TrainingStepJob::start() { execution_->start(); }

bool TrainingStepJob::finished() const { return execution_->finished(); }

Executor& TrainingStepJob::executor() {
  if (!execution_->executor()) throw std::logic_error("the training step has not started");
  return *execution_->executor();
}

TrainingStepReport TrainingStepJob::report() const {
  TrainingStepReport report = execution_->report();
  if (const std::int64_t tokens = model_.counted_tokens(); tokens > 0) {
    report.result.tokens_per_s = report.result.samples_per_s * static_cast<double>(tokens);
  }
  return report;
}

}  // namespace hpcsim

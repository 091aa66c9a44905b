#include "workloads/training/training_step_job.h"

#include <stdexcept>

#include "step_builder.h"

namespace hpcsim {

using training_detail::StepBuilder;

TrainingStepJob::TrainingStepJob(Platform& platform, JobId job, const Model& model, const TrainingRun& run)
    : platform_(platform), job_(job), model_(model),
      builder_(std::make_unique<StepBuilder>(model, platform.placement(job), run)) {
  builder_->prepare();
}

TrainingStepJob::~TrainingStepJob() = default;

void TrainingStepJob::start() { builder_->start(platform_, job_); }

bool TrainingStepJob::finished() const { return builder_->finished(); }

Executor& TrainingStepJob::executor() {
  if (!builder_->executor()) throw std::logic_error("the training step has not started");
  return *builder_->executor();
}

ModelStepReport TrainingStepJob::report() const {
  ModelStepReport report = builder_->report();
  if (const std::int64_t tokens = model_.counted_tokens(); tokens > 0) {
    report.result.tokens_per_s = report.result.samples_per_s * static_cast<double>(tokens);
  }
  return report;
}

}  // namespace hpcsim

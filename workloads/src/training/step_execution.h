#pragma once
// A training step's plan running on a Platform: its data-parallel collectives on the platform's fabric
// (every tp x cp rank's group at once, sharing links with whatever else runs there), its compute slowed
// by the SMs NCCL holds while they overlap, and the step's report read from the finished run. Private to
// the training step; TrainingStepJob (training_step_job.h) is its public face.
#include <memory>
#include <vector>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/platform/platform.h"
#include "sim-core/executor.h"
#include "sm_contention.h"
#include "workloads/training/training_step_plan.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim::training_detail {

class StepExecution {
 public:
  // The plan must outlive the execution; the job must be attached to the platform.
  StepExecution(const TrainingStepPlan& plan, Platform& platform, JobId job);
  StepExecution(const StepExecution&) = delete;
  StepExecution& operator=(const StepExecution&) = delete;

  // Releases the step's first ops at the platform's current time.
  void start();
  bool finished() const;
  Executor* executor() const { return executor_.get(); }
  TrainingStepReport report() const;  // once finished (std::logic_error before)

 private:
  const TrainingStepPlan& plan_;
  Platform& platform_;
  JobId job_;
  std::vector<std::vector<CollectiveGroup>> groups_;  // per pipeline stage, on the platform's fabric
  bool replay_ = false;
  bool by_symmetry_ = false;
  // With symmetry classes (the job alone on its platform): the links each running collective holds, so a
  // stage's collective replays repeated ring steps while no other stage's crosses its links.
  LinkLedger ledger_;
  // The algorithm each bucket size gets over each group, picked once (gradient buckets repeat a few sizes).
  AlgorithmChoices choices_;
  // With the ledger: each bucket size's lockstep step durations, replayed by the next bucket of that size.
  LockstepMemo lockstep_;
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<SmContention> contention_;
};

}  // namespace hpcsim::training_detail

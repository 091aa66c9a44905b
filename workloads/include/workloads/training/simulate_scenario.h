#pragma once
// One training step of a parsed scenario: its model, cluster, batch and parallelism.
#include "workloads/scenario.h"
#include "workloads/training/model_training_step.h"

namespace hpcsim {

// The training step the scenario describes (its framework's dispatch, fusion and CUDA graphs included).
TrainingRun training_run(const Scenario& scenario);

// The step, stretched by the input pipeline's stall when the scenario reads a dataset.
// record_timeline: fill the report's timeline (every op of the step with its lane and times).
// exact: every data-parallel group simulated in full (TrainingRun::exact; `hpcsim run --exact`).
ModelStepReport simulate_scenario(const Scenario& scenario, bool record_timeline = false, bool exact = false);

}  // namespace hpcsim

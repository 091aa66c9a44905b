#pragma once
// One training step of a parsed training scenario: its model, cluster, batch and parallelism, simulated
// with the input pipeline and the length mix the scenario names.
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/model_training_step.h"

namespace hpcsim {

// The training step the scenario describes (its framework's dispatch, fusion and CUDA graphs included).
TrainingStepConfig training_step_config(const TrainingScenario& scenario);

// The step, stretched by the input pipeline's stall when the scenario reads a dataset.
// record_timeline: fill the report's timeline (every op of the step with its lane and times).
// exact: every data-parallel group simulated in full (TrainingStepConfig::exact; `hpcsim run --exact`).
// progress: hears each simulated step's ops finish (model_training_step.h).
TrainingStepReport simulate_scenario(const TrainingScenario& scenario, bool record_timeline = false, bool exact = false,
                                     const StepProgress& progress = {});

}  // namespace hpcsim

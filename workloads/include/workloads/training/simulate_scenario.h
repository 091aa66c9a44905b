#pragma once
// One training step of a parsed scenario: its model, cluster, batch and parallelism.
#include "workloads/scenario.h"
#include "workloads/training/model_training_step.h"

namespace hpcsim {

ModelStepReport simulate_scenario(const Scenario& scenario);

}  // namespace hpcsim

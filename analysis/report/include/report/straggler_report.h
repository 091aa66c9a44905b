#pragma once
// The metrics a `stragglers:` section adds to a training run's report (stragglers.*): the chances the job
// holds a slow GPU and a degraded link, the step with each (and with both), the expected step and its ratio to
// the step without stragglers.
#include <vector>

#include "store/metric.h"
#include "workloads/stragglers/straggler_step.h"

namespace hpcsim {

std::vector<Metric> straggler_metrics(const StragglerSteps& steps);

}  // namespace hpcsim

#pragma once
// The metrics a `mixed_nodes:` section adds to a training run's report (mixed.*): each node type's
// replicas, micro batch, microbatches and step, the job's step (the longer), the global batch as split, the job's
// samples/s, the faster type's idle share, and with a proportional split its speedup over the even one.
#include <vector>

#include "store/metric.h"
#include "workloads/mixed/mixed_step.h"

namespace hpcsim {

std::vector<Metric> mixed_metrics(const MixedSteps& steps);

}  // namespace hpcsim

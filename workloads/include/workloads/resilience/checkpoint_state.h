#pragma once
// What a training checkpoint holds: the weights and the optimizer state (moments, fp32 master weights), once
// for the whole job. The one definition that a training scenario's and a capacity plan's resilience:
// sections use.

namespace hpcsim {

struct WorkloadConfig;  // workloads/scenario/training_scenario.h

double checkpoint_state_bytes(const WorkloadConfig& workload);

}  // namespace hpcsim

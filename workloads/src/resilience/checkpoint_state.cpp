#include "workloads/resilience/checkpoint_state.h"

#include "workloads/scenario/training_scenario.h"
#include "workloads/training/training_memory.h"

namespace hpcsim {

double checkpoint_state_bytes(const WorkloadConfig& workload) {
  return static_cast<double>(workload.built.params()) *
         (weight_bytes_per_param(workload.precision) + optimizer_state_bytes_per_param(workload.optimizer, workload.precision));
}

}  // namespace hpcsim

#include "workloads/training/simulate_scenario.h"

namespace hpcsim {

ModelStepReport simulate_scenario(const Scenario& s) {
  const WorkloadConfig& w = s.workload;
  return simulate_model_training_step(
      w.built, s.cluster, DataParallelRun{w.batch_per_gpu, s.parallelism.dp, w.precision, w.optimizer, w.optimizer_impl});
}

}  // namespace hpcsim

#pragma once
// The step of a synchronous training job with stragglers (straggler_config.h). The slowest rank sets the
// step: its collectives (data- and tensor-parallel) wait for it, so a job holding a slow GPU runs every step
// as if each of its GPUs ran at the slow clock (exact for data and tensor parallelism; with pipeline stages
// an upper bound, since only the slow rank's stage is slow), and a job holding a degraded link as if every
// node's link ran at the degraded rate (a ring collective runs at its slowest link; other collectives less
// so: an upper bound). The expected step weighs the four cases (nothing slow, a slow GPU, a slow link,
// both) by the chances the job's draw from the fleet holds them.
#include <optional>

#include "workloads/scenario/training_scenario.h"

namespace hpcsim {

struct StragglerSteps {
  StragglerOdds odds;
  double base_s = 0;
  std::optional<double> slow_gpu_s, slow_link_s, both_s;  // simulated where the section makes them possible
  double expected_s = 0;
};

// The scenario with its GPUs' clocks and its network's rate scaled (1: unchanged).
TrainingScenario slowed_scenario(const TrainingScenario& scenario, double gpu_clock, double link_bandwidth);

// Simulates the slowed steps of `scenario` (which has a stragglers: section) beside its step `base_s`.
StragglerSteps straggler_steps(const TrainingScenario& scenario, double base_s);

}  // namespace hpcsim

#pragma once
// What a training run assumed: the settings its scenario left unstated and took from a default that moves
// the predicted step time by more than kAssumptionThreshold, each with the prediction under the
// alternative (what `hpcsim run --set KEY=VALUE` gives). `hpcsim run` lists them (JSON `assumptions`, a
// table section) and widens the prediction interval to cover them. Candidates, each only where it applies:
//   workload.memory_format           models with convolutions: the framework's layout, or the other one
//   workload.attention               models with self-attention: the framework's kernel, or the other one
//   workload.overlap_gradient_reduce data-parallel (or context-parallel) runs: the framework's default, or not
//   parallelism.sequence_parallel    tp > 1: off (the default), or on
// Cost: an alternative that only changes a replica's compute (layout, kernel, sequence parallelism) is
// first simulated on one replica (dp 1, no input pipeline): under kScreen of the run's step time there, it
// is not simulated in full. The overlap alternative is not simulated where the run's data-parallel
// collectives last under kScreen of its step. Everything else costs one full simulation each.
#include <vector>

#include "configs/config_node.h"
#include "report/step_time_interval.h"
#include "store/assumption.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

inline constexpr double kAssumptionThreshold = 0.03;  // |change| above this: listed
// Screening: a replica's change below this share of the run's step is taken as not moving the run by
// kAssumptionThreshold (overlapped collectives slow the compute under them by at most 108/84 on DGX A100).
inline constexpr double kAssumptionScreen = 0.02;

// `root` is the resolved scenario (what the user stated); `step` the run's own simulation.
std::vector<Assumption> unstated_assumptions(const TrainingScenario& scenario, const ConfigNode& root,
                                             const TrainingStepReport& step, bool exact = false);

// The interval stretched so that it holds, for every alternative, the band its prediction would have had.
PredictionInterval cover_assumptions(PredictionInterval interval, const std::vector<Assumption>& assumptions);

}  // namespace hpcsim

#pragma once
// What a training run assumed: the settings its scenario left unstated and took from a default that moves
// the predicted step time by more than kAssumptionThreshold, each with the prediction under the
// alternative (what `hpcsim run --set KEY=VALUE` gives). `hpcsim run` lists them (JSON `assumptions`, a
// table section) and widens the prediction interval to cover them. Candidates, each only where it applies
// and only where the scenario's framework leaves it to its user (open_settings; docs/mapping-guide.md,
// "The assumptions list", has the table and its sources):
//   workload.memory_format           models with convolutions: the framework's layout, or the other one
//   workload.attention               models with self-attention: the framework's kernel, or the other one
//   workload.overlap_gradient_reduce data-parallel (or context-parallel) runs: the framework's default, or not
//   parallelism.sequence_parallel    tp > 1: off (the default), or on
//   workload.overlap_param_gather    ZeRO-1/2 data-parallel runs: off (the default), or on
// Cost: an alternative that only changes a replica's compute (layout, kernel, sequence parallelism) is
// first simulated on one replica (dp 1, no input pipeline): under kAssumptionScreen of the run's step time
// there, it is dropped. Past it, a run of at most full_simulation_gpus GPUs simulates the alternative in full;
// a larger one takes the run's step plus the replica's change (AssumptionAlternative::estimated): the data-
// parallel collectives' cost is the run's own, as if the change were all exposed; the input pipeline's stall
// is the run's. The overlap alternative is not simulated where the run's data-parallel collectives last under
// kAssumptionScreen of its step, and otherwise costs one full simulation.
#include <string>
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
// Runs on more GPUs than this estimate compute-only alternatives from one replica instead of simulating
// them in full (an extra full simulation there costs as much as the run: 2 s of CPU at 131,072 GPUs).
inline constexpr int kAssumptionFullSimulationGpus = 1024;

// The unstated settings a framework leaves to its user; a setting it fixes is never an alternative.
// Keyed by the framework's name (configs/frameworks/<name>.yaml); a name not known here opens them all.
struct OpenSettings {
  bool memory_format = true, attention = true, overlap_gradient_reduce = true, sequence_parallel = true,
       overlap_param_gather = true;
  bool tp_comm_overlap = true;  // tensor-parallel communication pipelined with the GEMMs (needs sequence parallelism)
};
OpenSettings open_settings(const std::string& framework);

// `root` is the resolved scenario (what the user stated); `step` the run's own simulation. The alternatives
// run with symmetry classes even when the run itself was --exact: the classes give the full simulation's
// step (docs/validation.md, "Symmetry classes"), and a second full simulation would double a run of minutes.
std::vector<Assumption> unstated_assumptions(const TrainingScenario& scenario, const ConfigNode& root,
                                             const TrainingStepReport& step,
                                             int full_simulation_gpus = kAssumptionFullSimulationGpus);

// The interval stretched so that it holds, for every alternative, the band its prediction would have had.
PredictionInterval cover_assumptions(PredictionInterval interval, const std::vector<Assumption>& assumptions);

}  // namespace hpcsim

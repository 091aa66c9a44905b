#pragma once
// A `kind: training` scenario simulated once: the step, its report (step_report.h) and the run record
// `hpcsim run` stores. Shared by a plain run and every point of a study.
#include <string>

#include <optional>
#include <vector>

#include "driver/prediction_interval.h"
#include "store/assumption.h"
#include "store/results_store.h"
#include "configs/config_node.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim {

struct TrainingScenarioRun {
  TrainingStepReport step;
  std::optional<PredictionInterval> interval;  // the band of the true step time, where calibrated (covering the assumptions)
  std::optional<std::vector<Assumption>> assumptions;  // with check_assumptions (driver/assumptions.h)
  RunRecord record;                             // record.report is what `run` prints
};

// Simulates `scenario` (parsed from `root`); sim_wall_s is the simulation's wall time. The record's status
// is "oom" when the step does not fit in GPU memory (its timings then assume it did). check_assumptions
// (`hpcsim run`, not a study's points): the unstated settings that move the prediction are simulated, listed
// in the report and covered by the interval; the step itself is the same. progress: hears the step's ops
// finish (not the assumptions' steps), for a progress line.
TrainingScenarioRun run_training_scenario(const TrainingScenario& scenario, const ConfigNode& root, const IntervalTable& intervals,
                                  const std::string& tool_version, bool record_timeline = false, bool exact = false,
                                  bool check_assumptions = false, const StepProgress& progress = {});

}  // namespace hpcsim

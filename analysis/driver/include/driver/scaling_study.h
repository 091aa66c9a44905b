#pragma once
// `hpcsim run --scale` as a study: the base scenario at each GPU count (scaling.h), every point simulated in
// order and, with a store, stored as it completes and linked to one study.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "driver/prediction_interval.h"
#include "store/results_store.h"
#include "driver/scaling.h"
#include "report/scaling_report.h"
#include "store/study.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim {

// One GPU count, checked and parsed before any point is simulated.
struct ScalingStudyPoint {
  int gpus = 0;
  ScaledConfig config;  // the scenario tree at this count
  TrainingScenario scenario;    // parsed from config.root; its name marks the count (" @N gpus")
};

// The study record: one point per count, with the scenario keys scale_config sets at that count.
Study scaling_study(const std::string& base_name, const ConfigNode& base_root,
                    const std::vector<ScalingStudyPoint>& points);

// Called as each point completes, before the next starts (e.g. to warn that it does not fit in memory).
using ScalingPointDone = std::function<void(const TrainingScenario&, const TrainingStepReport&)>;

// Simulates every point in order; with a store (else nullptr), stores each as it completes (study_runner.h).
// Returns the rows of the scaling table, in point order. StoreError when storing fails.
std::vector<ScalingPoint> run_scaling_study(const std::string& base_name, const ConfigNode& base_root,
                                            const std::vector<ScalingStudyPoint>& points,
                                            const IntervalTable& intervals, const std::string& tool_version,
                                            ResultsStore* store, const ScalingPointDone& on_point_done);

}  // namespace hpcsim

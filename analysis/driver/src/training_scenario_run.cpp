#include "driver/training_scenario_run.h"

#include <chrono>
#include <utility>

#include "driver/assumptions.h"
#include "report/input_report.h"
#include "report/mixed_report.h"
#include "report/resilience_report.h"
#include "report/step_report.h"
#include "report/straggler_report.h"
#include "configs/yaml_text.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

TrainingScenarioRun run_training_scenario(const TrainingScenario& scenario, const ConfigNode& root, const IntervalTable& intervals,
                                  const std::string& tool_version, bool record_timeline, bool exact,
                                  bool check_assumptions, const StepProgress& progress) {
  using Clock = std::chrono::steady_clock;
  TrainingScenarioRun run;
  RunRecord& record = run.record;
  record.started_at = iso8601_utc_now();
  const auto wall_start = Clock::now();
  run.step = simulate_scenario(scenario, record_timeline, exact, progress);
  record.wall_s = std::chrono::duration<double>(Clock::now() - wall_start).count();

  const TrainingStepResult& result = run.step.result;
  run.interval = intervals.interval(prediction_class(scenario), result.step_time_s);
  if (check_assumptions) {
    run.assumptions = unstated_assumptions(scenario, root, run.step);
    if (run.interval) run.interval = cover_assumptions(*run.interval, *run.assumptions);
  }
  record.report = Report{scenario.name, std::string(to_string(ScenarioKind::training)),
                         training_step_metrics(result, record.wall_s, run.interval), run.assumptions};
  if (run.step.input) {  // the dataset's reading, decoding and copying, and what limits it
    for (Metric& m : input_pipeline_metrics(*run.step.input)) record.report.metrics.push_back(std::move(m));
  }
  if (scenario.resilience) {  // the whole run with failures, from the simulated step time
    const ResilienceConfig& r = *scenario.resilience;
    const LongRunSummary summary = simulate_long_run(r.model(result.step_time_s), r.replicas, r.seed);
    for (Metric& m : resilience_metrics(r, summary, r.work_s(result.step_time_s))) record.report.metrics.push_back(std::move(m));
  }
  if (scenario.stragglers) {  // slow GPUs and degraded links: the slowed steps beside this one
    for (Metric& m : straggler_metrics(straggler_steps(scenario, result.step_time_s))) record.report.metrics.push_back(std::move(m));
  }
  bool fits = result.fits_in_memory;
  if (scenario.mixed_nodes) {  // a second node type in the job: each type's step, the job's, the batch split
    const MixedSteps mixed = mixed_steps(scenario, result);
    fits = fits && mixed.first.fits_in_memory && mixed.second.fits_in_memory;
    for (Metric& m : mixed_metrics(mixed)) record.report.metrics.push_back(std::move(m));
  }
  record.scenario_text = to_yaml_text(root);
  record.tool_version = tool_version;
  record.status = fits ? "ok" : "oom";
  if (!result.fits_in_memory) record.message = "memory per GPU exceeds the GPU's capacity";
  else if (!fits) record.message = "memory per GPU exceeds a mixed_nodes node type's capacity at its micro batch";
  return run;
}

}  // namespace hpcsim

#pragma once
// Running one scenario file of any kind: the entry point `hpcsim run`, `hpcsim serve` (at the scenario's own
// load) and the bench share. It reads the file with its --set overrides, tells its kind, simulates it and
// returns the report with the run record to store. Sweeps (driver/sweep.h), scaling (driver/scaling_study.h),
// plans and queues build on the same pieces.
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "driver/prediction_interval.h"
#include "driver/training_scenario_run.h"
#include "store/results_store.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

struct ScenarioRequest {
  std::string file;
  std::vector<std::string> overrides;  // --set KEY=VALUE, in order
  bool record_timeline = false;        // training: keep the step's timeline (--trace)
  bool exact = false;                  // training: every data-parallel group in full
  std::vector<double> serve_rates;     // serve: run at each rate too (--sweep-load), requests per second
  double serve_target_p99_s = 0;       // serve: > 0 finds the fewest replicas meeting it (--target-p99)
  int serve_max_replicas = 1024;       // serve: the most replicas that search tries
  double serve_max_rate_p99_s = 0;     // serve: > 0 searches the highest rate within this p99 (--max-rate-within)
  // serve: (requests finished, of total) as an LLM endpoint's run goes (minutes at the requests limit), or
  // (runs finished, of total) of a --sweep-load, for a progress line.
  std::function<void(std::size_t, std::size_t)> serve_after_each;
  // training: (ops finished, of the step's ops) as the step is simulated (minutes with --exact at thousands
  // of GPUs), for a progress line.
  StepProgress step_progress;
};

// A scenario file read with its overrides (given by `flag`: --set, or --vary for a sweep's point). A
// workload.model=NAME that changes the file's model swaps the model for a what-if: the file's sizes of its
// old model (the quickstart's seq_len, layers, hidden, ...) are dropped and named in a note appended to
// `notes` (when given), so NAME runs at its own sizes; sizes given with the flag are kept (and checked).
ConfigNode load_what_if(const std::string& file, const std::vector<std::string>& sets, const std::string& flag,
                        std::vector<std::string>* notes);

// A scenario file read with its overrides as load_what_if does.
struct LoadedScenario {
  ConfigNode root;
  ScenarioKind kind = ScenarioKind::training;
  // The run's name: the file's `name:` (else its stem), with the --set values when there are any
  // ("quickstart [cluster.nodes=16]"), so a what-if is never stored or printed under the file's name alone.
  std::string name;
  std::vector<std::string> notes;   // for stderr, before the run
};

// A what-if that changes the layout (a cluster or parallelism key) without setting a batch can change the
// global batch (batch_per_gpu is per replica, so fewer data-parallel replicas train fewer samples a step):
// "the global batch is 4 samples ..., not the file's 64 ...". Empty when the batch is the file's, a --set
// gave a batch key, or the file alone does not parse.
std::string global_batch_note(const TrainingScenario& scenario, const std::string& file, const std::vector<std::string>& sets,
                              const SpecCatalog& catalog);

// "NAME [KEY=VALUE, ...]": a run's name with the values set on it (NAME itself when there are none).
std::string what_if_name(const std::string& name, const std::vector<std::string>& sets);

// ConfigError for a file that does not read or names a kind no command runs.
LoadedScenario load_scenario(const ScenarioRequest& request);

struct ScenarioOutcome {
  RunRecord record;                        // record.report is what is printed; record.status "ok", "oom", ...
  std::optional<TrainingScenarioRun> training; // kind training: the step, its memory and timeline
  std::string cannot_meet;                 // kind serve: a target no replica count meets (empty otherwise)
  std::vector<std::string> notes;          // for stderr, before the run (what the layout leaves unused)
  std::vector<std::string> warnings;       // for stderr, after the run (out of memory)
};

// Simulates a training or serve scenario once. ConfigError for a scenario that does not parse, or a kind
// that runs elsewhere (a plan: `hpcsim plan`); std::invalid_argument for a serve request it cannot run.
ScenarioOutcome run_scenario(const LoadedScenario& scenario, const ScenarioRequest& request, const SpecCatalog& catalog,
                             const IntervalTable& intervals, const std::string& tool_version);

// A training scenario already parsed from `loaded` (so a caller can refuse bad input before it prepares
// anything), simulated once, with the unstated settings that move it (driver/assumptions.h).
ScenarioOutcome run_loaded_training(const TrainingScenario& scenario, const LoadedScenario& loaded,
                                      const ScenarioRequest& request, const IntervalTable& intervals,
                                      const std::string& tool_version);

// "out of memory: the step needs ..." when the step does not fit in its GPUs (empty when it does);
// `where` names which run of several.
std::string out_of_memory_warning(const TrainingScenario& scenario, const TrainingStepReport& step, const std::string& where = {});

}  // namespace hpcsim

#include <algorithm>
#include <tuple>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "driver/prediction_interval.h"
#include "report/report_render.h"
#include "store/results_store.h"
#include "driver/scaling.h"
#include "driver/scaling_study.h"
#include "report/trace_writer.h"
#include "driver/scenario_run.h"
#include "driver/training_scenario_run.h"
#include "commands.h"
#include "progress.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "workloads/resilience/replica_timeline.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/scenario_kind.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim::cli {

namespace {

struct RunOptions {
  std::string scenario;
  std::vector<std::string> overrides;
  std::string db = "results.db";
  bool no_db = false;
  std::string format = "table";
  std::string trace;  // Chrome trace-event JSON of the step's timeline
  std::string replica_trace;  // Chrome trace-event JSON of replica 0 of the resilience run
  std::string scale;  // GPU counts, e.g. "8,16,32"
  bool exact = false;  // every data-parallel group in full, no symmetry classes
};

// `where`: which run of a --scale sweep, or empty.
void warn_if_oom(const TrainingScenario& scenario, const TrainingStepReport& report, const std::string& where = {}) {
  const std::string warning = out_of_memory_warning(scenario, report, where);
  if (!warning.empty()) std::cerr << "warning: " << warning << "\n";
}

ScenarioRequest request_of(const RunOptions& o) {
  ScenarioRequest r;
  r.file = o.scenario;
  r.overrides = o.overrides;
  r.record_timeline = !o.trace.empty();
  r.exact = o.exact;
  return r;
}

// A `kind: training` scenario, run once.
int run_training(const RunOptions& o, const LoadedScenario& loaded) {
  ScenarioRequest request = request_of(o);
  TrainingScenario scenario;
  IntervalTable intervals;
  try {
    scenario = parse_training_scenario(loaded.root, SpecCatalog(config_root()), loaded.name);  // before the --trace file is made
    scenario.name = loaded.name;  // with the --set values
    intervals = IntervalTable::load(config_root());
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  if (!o.replica_trace.empty() && !scenario.resilience) {
    std::cerr << ConfigError(loaded.root.loc(), "--replica-trace draws a run with failures: the scenario needs a "
                                                "resilience: section (docs/resilience.md)")
                     .what()
              << "\n";
    return kExitBadInput;
  }
  // The store and the trace files are opened before simulating, so that a bad one costs no simulation.
  std::optional<ResultsStore> store;
  if (!open_store(o.db, o.no_db, "run", store)) return kExitBadInput;
  std::ofstream trace, replica_trace;
  for (const auto& [flag, path, file] : {std::tuple{"--trace", &o.trace, &trace}, {"--replica-trace", &o.replica_trace, &replica_trace}}) {
    if (path->empty()) continue;
    file->open(*path, std::ios::binary | std::ios::trunc);
    if (!*file) {
      std::cerr << "hpcsim run: " << flag << " " << *path << ": cannot write the file: " << std::strerror(errno) << "\n";
      return kExitFailure;
    }
  }
  if (const std::string note = global_batch_note(scenario, o.scenario, o.overrides, SpecCatalog(config_root())); !note.empty()) {
    std::cerr << "note: " << note << "\n";
  }
  // A step is simulated in a second, except with --exact at thousands of GPUs (minutes): its ops as they finish.
  Progress progress("run", "ops of the step", 0, o.format);
  progress.uneven_units();
  std::size_t step_ops = 0;
  if (progress.enabled()) {
    request.step_progress = [&progress, &step_ops](std::size_t done, std::size_t total) {
      progress.set_total(step_ops = total);
      progress.show(done);
    };
  }
  const ScenarioOutcome run = run_loaded_training(scenario, loaded, request, intervals, HPCSIM_VERSION);
  progress.show(step_ops);  // every op finished (the watch last heard it a few hundred events before the end)
  progress.finish();
  for (const std::string& note : run.notes) std::cerr << "note: " << note << "\n";
  std::cout << render_report(run.record.report, o.format);
  for (const std::string& warning : run.warnings) std::cerr << "warning: " << warning << "\n";
  if (trace.is_open()) {
    trace << chrome_trace_json(scenario.name, run.training->step.timeline);
    trace.close();
    if (!trace) {
      std::cerr << "hpcsim run: --trace " << o.trace << ": writing the file failed\n";
      return kExitFailure;
    }
  }
  if (replica_trace.is_open()) {  // replica 0 again, its phases recorded: the same draws as in the summary
    const ResilienceConfig& r = *scenario.resilience;
    replica_trace << chrome_trace_json(scenario.name + ": replica 0 of seed " + std::to_string(r.seed),
                                       long_run_replica_timeline(r.model(run.training->step.result.step_time_s), r.seed, 0));
    replica_trace.close();
    if (!replica_trace) {
      std::cerr << "hpcsim run: --replica-trace " << o.replica_trace << ": writing the file failed\n";
      return kExitFailure;
    }
  }
  return store_record(store, run.record, "run");
}

// A `kind: mpi` scenario (HPL), run once and stored.
int run_mpi(const RunOptions& o, const LoadedScenario& loaded) {
  std::optional<ResultsStore> store;  // checked before the simulation, so that a bad --db costs none
  if (!open_store(o.db, o.no_db, "run", store)) return kExitBadInput;
  ScenarioOutcome run;
  try {
    run = run_scenario(loaded, request_of(o), SpecCatalog(config_root()), IntervalTable{}, HPCSIM_VERSION);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "hpcsim run: " << e.what() << "\n";
    return kExitBadInput;
  }
  for (const std::string& note : run.notes) std::cerr << "note: " << note << "\n";
  std::cout << render_report(run.record.report, o.format);
  return store_record(store, run.record, "run");
}

// --scale: every count is checked and parsed before any is simulated, so bad input costs no time.
int run_scale(const RunOptions& o, const LoadedScenario& loaded) {
  const ConfigNode& root = loaded.root;
  const std::string flag = "--scale " + o.scale;
  const SpecCatalog catalog(config_root());
  TrainingScenario base;
  std::vector<ScalingStudyPoint> points;
  IntervalTable intervals;
  try {
    intervals = IntervalTable::load(config_root());
    const std::vector<int> counts = parse_gpu_counts(o.scale, flag);
    base = parse_training_scenario(root, catalog, loaded.name);
    base.name = loaded.name;  // with the --set values
    for (const int gpus : counts) points.push_back({gpus, scale_config(root, base, gpus, flag), {}});
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  for (ScalingStudyPoint& p : points) {
    try {
      p.scenario = parse_training_scenario(p.config.root, catalog, base.name);
    } catch (const ConfigError& e) {
      std::cerr << "hpcsim run: " << flag << ": at " << p.gpus << " GPUs: " << e.what() << "\n";
      return kExitBadInput;
    }
    p.scenario.name = base.name + " @" + std::to_string(p.gpus) + " gpus";
  }
  if (!points.empty() && points.front().config.weak) {
    const ConfigNode& global = root.at("workload").at("global_batch");
    std::cerr << "note: the scenario fixes workload.global_batch = " << global.as_int() << "; --scale keeps each "
              << "replica's batch (" << base.workload.batch_per_gpu << " x " << base.parallelism.microbatches
              << " microbatches) instead, so the global batch grows with the GPU count (weak scaling)\n";
  }

  // Opened before the first point, so that a bad --db costs no simulation; each point is stored as it completes.
  std::optional<ResultsStore> store;
  if (!open_store(o.db, o.no_db, "run", store)) return kExitBadInput;
  std::vector<ScalingPoint> done;
  try {
    done = run_scaling_study(base.name, root, points, intervals, HPCSIM_VERSION, store ? &*store : nullptr,
                             [](const TrainingScenario& scenario, const TrainingStepReport& step) {
                               warn_if_oom(scenario, step, scenario.name);
                             });
  } catch (const StoreError& e) {
    std::cerr << "hpcsim run: " << e.what() << "\n";
    return store_failure_exit(e);
  }

  const std::vector<ScalingRow> rows = scaling_rows(done);
  if (o.format == "json") {
    std::cout << scaling_to_json(rows);
  } else if (o.format == "csv") {
    std::cout << scaling_to_csv(rows);
  } else {
    std::cout << scaling_to_table(base.name, rows);
  }
  return kExitOk;
}

// Reads the scenario and runs it as its kind says.
int run_file(const RunOptions& o, bool scale) {
  LoadedScenario loaded;
  try {
    loaded = load_scenario(request_of(o));
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  for (const std::string& note : loaded.notes) std::cerr << "note: " << note << "\n";
  const ConfigNode& root = loaded.root;
  if (!o.replica_trace.empty() && loaded.kind != ScenarioKind::training) {
    std::cerr << ConfigError(root.at("kind").loc(), "--replica-trace is for training scenarios with a resilience: "
                                                    "section").what()
              << "\n";
    return kExitBadInput;
  }
  switch (loaded.kind) {
    case ScenarioKind::training:
      return scale ? run_scale(o, loaded) : run_training(o, loaded);
    case ScenarioKind::plan:
      std::cerr << ConfigError(root.at("kind").loc(), "a plan searches many scenarios: run it with `hpcsim plan " +
                                                          o.scenario + "`").what()
                << "\n";
      return kExitBadInput;
    case ScenarioKind::serve:
      if (scale || !o.trace.empty()) {
        std::cerr << ConfigError(root.at("kind").loc(), std::string(scale ? "--scale" : "--trace") +
                                                            " is for training scenarios; a serve scenario sweeps its load "
                                                            "with `hpcsim serve " + o.scenario + " --sweep-load R1,R2,...`")
                         .what()
                  << "\n";
        return kExitBadInput;
      }
      return run_loaded_serve(loaded, request_of(o), o.db, o.no_db, o.format, "run");
    case ScenarioKind::mpi:
      if (scale || !o.trace.empty() || o.exact) {
        std::cerr << ConfigError(root.at("kind").loc(), std::string(scale ? "--scale" : !o.trace.empty() ? "--trace" : "--exact") +
                                                            " is for training scenarios; vary an mpi scenario's "
                                                            "cluster.nodes with --set")
                         .what()
                  << "\n";
        return kExitBadInput;
      }
      return run_mpi(o, loaded);
    case ScenarioKind::schedule:
      break;  // runnable_scenario_kind refused it: not built as a scenario kind (job lists run with hpcsim schedule)
  }
  std::cerr << "hpcsim run: scenario kind '" << to_string(loaded.kind) << "' cannot be run\n";
  return kExitBadInput;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Simulate a scenario and store the result");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("scenario", o->scenario, "Scenario YAML file")->required();
  cmd->add_option("--set", o->overrides, "Override a scenario key, e.g. --set cluster.nodes=4 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_flag("--no-db", o->no_db, "Do not store the run");
  auto* exact = cmd->add_flag("--exact", o->exact,
                              "Simulate every data-parallel group in full instead of one per symmetry class "
                              "(same answer, slower)");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  auto* trace = cmd->add_option("--trace", o->trace,
                                "Write the step's timeline as Chrome trace-event JSON (chrome://tracing, Perfetto)")
                    ->type_name("FILE");
  auto* replica_trace =
      cmd->add_option("--replica-trace", o->replica_trace,
                      "Write replica 0 of the run with failures (the scenario's resilience: section) as Chrome "
                      "trace-event JSON (Perfetto): compute, checkpoints, failures, detection, restarts, restores")
          ->type_name("FILE");
  auto* scale = cmd->add_option("--scale", o->scale,
                  "Re-run at each GPU count (each once) with only data parallelism changed; prints throughput, speed-up "
                  "and scaling efficiency per count")
      ->type_name("N1,N2,...")
      ->excludes(trace)
      ->excludes(replica_trace)
      ->excludes(exact);  // the sweep's points run through the study, which has no --exact
  // count(), not an empty string: "--scale ''" is a list to reject, not a plain run.
  return [o, scale] { return run_file(*o, scale->count() > 0); };
}

}  // namespace hpcsim::cli

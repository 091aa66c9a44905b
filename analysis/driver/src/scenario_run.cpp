#include "driver/scenario_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "driver/mpi_intervals.h"
#include "driver/serve_intervals.h"
#include "driver/serve_run.h"
#include "report/hpl_report.h"
#include "report/spmd_report.h"
#include "workloads/hpc/fabric_mpi_comm.h"
#include "workloads/hpc/mpi_scenario.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/serving/serve_scenario.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim {

namespace {

constexpr const char* kModelSizeKeys[] = {"seq_len", "resolution", "layers", "hidden", "heads", "ffn", "vocab"};

// A --set (or --vary) workload.model=NAME that changes the file's model swaps the model for a what-if: the
// file's sizes were written for its own model (the quickstart's GPT-3 XL shape would make a 1.3 B-parameter
// "BERT-large"), so every one of them that was not itself set on the command line is dropped and NAME runs
// at its own sizes; a NAME that takes no such size at all would refuse it anyway. Returns the note naming
// what was dropped (empty when nothing was).
std::string drop_old_model_sizes(ConfigNode& root, const std::string& file, const std::vector<std::string>& sets,
                                 const std::string& flag) {
  std::string model_set;
  std::vector<std::string> set_keys;
  for (const std::string& s : sets) {
    const std::string key = s.substr(0, s.find('='));
    if (key == "workload.model") model_set = s;
    set_keys.push_back(key);
  }
  ConfigNode* workload = root.find("workload");
  const ConfigNode* model = workload != nullptr && workload->is_map() ? workload->find("model") : nullptr;
  if (model_set.empty() || model == nullptr || !model->is_scalar()) return {};
  const ConfigNode file_root = load_config(file, {});
  const ConfigNode* file_workload = file_root.find("workload");
  const ConfigNode* file_model = file_workload != nullptr && file_workload->is_map() ? file_workload->find("model") : nullptr;
  if (file_model != nullptr && file_model->is_scalar() && file_model->as_string() == model->as_string()) return {};
  const std::string old_model = file_model != nullptr && file_model->is_scalar() ? file_model->as_string() : "the file's model";
  std::string dropped;
  for (const char* key : kModelSizeKeys) {
    if (!workload->has(key)) continue;
    if (std::find(set_keys.begin(), set_keys.end(), std::string("workload.") + key) != set_keys.end()) continue;
    workload->erase(key);
    dropped += (dropped.empty() ? "" : ", ") + std::string(key);
  }
  if (dropped.empty()) return {};
  return flag + " " + model_set + ": the file's " + dropped + " (sizes of its model " + old_model +
         ") are dropped; " + model->as_string() + " runs at its own sizes (set them with " + flag + " to change them)";
}

}  // namespace

ConfigNode load_what_if(const std::string& file, const std::vector<std::string>& sets, const std::string& flag,
                        std::vector<std::string>* notes) {
  ConfigNode root = load_config(file, sets, flag);
  if (runnable_scenario_kind(root) == ScenarioKind::training) {
    if (std::string note = drop_old_model_sizes(root, file, sets, flag); !note.empty() && notes != nullptr) {
      notes->push_back(std::move(note));
    }
  }
  return root;
}

namespace {

// A layout smaller than the cluster leaves GPUs idle: say so, it is rarely what a what-if means.
std::string idle_gpu_note(const TrainingScenario& s) {
  const ParallelismConfig& p = s.parallelism;
  const int used = p.layout.gpus();
  if (used >= s.cluster.gpus()) return {};
  std::ostringstream note;
  note << "the run uses " << used << " of the cluster's " << s.cluster.gpus() << " GPUs (" << p.layout.to_string()
       << "); leave parallelism.dp unset to use them all";
  return note.str();
}

ScenarioOutcome run_serve(const LoadedScenario& loaded, const ScenarioRequest& request, const SpecCatalog& catalog,
                          const std::string& tool_version) {
  const auto wall_start = std::chrono::steady_clock::now();
  ServeScenario scenario = parse_serve_scenario(loaded.root, catalog, loaded.name);
  scenario.name = loaded.name;  // with the --set values
  ServeRun run;
  if (request.serve_max_rate_p99_s > 0) {
    run = serve_max_rate(scenario, request.serve_max_rate_p99_s);
  } else if (!request.serve_rates.empty()) {
    run = serve_load_sweep(scenario, request.serve_rates, request.serve_after_each);
  } else if (request.serve_target_p99_s > 0) {
    // A search over replicas needs a load to queue: offline is a question the flag cannot ask.
    if (scenario.serving.offline() && !scenario.llm) {
      throw ConfigError(SourceLoc{"--target-p99"}, "the scenario has no load to meet a p99 under (it runs offline: "
                                                   "give serving.rate_rps, a trace or concurrency)");
    }
    run = serve_replica_search(scenario, request.serve_target_p99_s, request.serve_max_replicas);
  } else {
    run = serve_once(scenario, request.serve_after_each);
  }
  // The band each headline metric is expected in (configs/serving-intervals.yaml), as training's step time.
  add_serve_intervals(run.report, scenario, load_serve_intervals(catalog.root()));
  ScenarioOutcome out;
  out.cannot_meet = run.cannot_meet;
  out.record.report = std::move(run.report);
  out.record.scenario_text = to_yaml_text(loaded.root);
  out.record.tool_version = tool_version;
  out.record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

// kind: mpi: the application (HPL, or a stencil / HPCG / SPMD program) once, its metrics and the run record.
ScenarioOutcome run_mpi(const LoadedScenario& loaded, const SpecCatalog& catalog, const std::string& tool_version) {
  const auto wall_start = std::chrono::steady_clock::now();
  MpiScenario scenario = parse_mpi_scenario(loaded.root, catalog, loaded.name);
  scenario.name = loaded.name;  // with the --set values, as a training what-if is named
  std::unique_ptr<MpiComm> owned;
  if (scenario.network_model == MpiNetworkModel::fabric) {
    owned = std::make_unique<FabricMpiComm>(scenario.cluster);
  } else {
    owned = std::make_unique<AnalyticMpiComm>(scenario.cluster);
  }
  MpiComm& comm = *owned;
  ScenarioOutcome out;
  if (scenario.app == MpiApp::hpl) {
    out.record.report = hpl_report(scenario, simulate_hpl(scenario.cluster, scenario.hpl, comm));
  } else {
    out.record.report = spmd_report(scenario, simulate_mpi_app(scenario, comm));
  }
  // The band each headline metric is expected in (configs/hpc-intervals.yaml), as training's step time.
  add_mpi_intervals(out.record.report, scenario, load_mpi_intervals(catalog.root()));
  out.notes = scenario.notes;
  out.record.scenario_text = to_yaml_text(loaded.root);
  out.record.tool_version = tool_version;
  out.record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (scenario.n_from_memory) {
    out.notes.push_back("HPL N = " + std::to_string(static_cast<long long>(scenario.hpl.n)) + " fills " +
                        std::to_string(static_cast<int>(scenario.memory_fraction * 100 + 0.5)) +
                        (scenario.hpl.accelerator == HplAccelerator::gpu ? " % of the GPUs' memory" : " % of the nodes' memory") +
                        " (workload.n not given)");
  }
  return out;
}

}  // namespace

std::string global_batch_note(const TrainingScenario& scenario, const std::string& file, const std::vector<std::string>& sets,
                              const SpecCatalog& catalog) {
  std::string layout_sets;
  for (const std::string& set : sets) {
    const std::string key = set.substr(0, set.find('='));
    for (const char* batch_key : {"workload.global_batch", "workload.batch_per_gpu", "workload.micro_batch",
                                  "workload.tokens_per_gpu", "parallelism.microbatches"}) {
      if (key == batch_key) return {};  // the batch was asked for
    }
    if (key.starts_with("parallelism.") || key.starts_with("cluster.")) layout_sets += (layout_sets.empty() ? "" : ", ") + set;
  }
  if (layout_sets.empty()) return {};
  TrainingScenario file_alone;
  try {
    file_alone = parse_training_scenario(load_config(file, {}), catalog, "file");
  } catch (const ConfigError&) {
    return {};
  }
  const auto describe = [](const TrainingScenario& s) {
    const ParallelismConfig& p = s.parallelism;
    return std::to_string(s.global_batch()) + " samples (micro batch " + std::to_string(s.workload.batch_per_gpu) + " x " +
           std::to_string(p.microbatches) + " microbatch" + (p.microbatches == 1 ? "" : "es") + " x dp " +
           std::to_string(p.layout.dp) + ")";
  };
  if (scenario.global_batch() == file_alone.global_batch()) return {};
  return "--set " + layout_sets + ": the global batch is " + describe(scenario) + ", not the file's " +
         describe(file_alone) + "; set workload.global_batch to keep it";
}

std::string what_if_name(const std::string& name, const std::vector<std::string>& sets) {
  if (sets.empty()) return name;
  std::string values;
  for (const std::string& set : sets) values += (values.empty() ? "" : ", ") + set;
  return name + " [" + values + "]";
}

LoadedScenario load_scenario(const ScenarioRequest& request) {
  LoadedScenario loaded;
  loaded.root = load_what_if(request.file, request.overrides, "--set", &loaded.notes);
  loaded.kind = runnable_scenario_kind(loaded.root);
  const ConfigNode* name = loaded.root.find("name");
  loaded.name = what_if_name(name != nullptr && name->is_scalar() ? name->as_string()
                                                                  : std::filesystem::path(request.file).stem().string(),
                             request.overrides);
  return loaded;
}

ScenarioOutcome run_loaded_training(const TrainingScenario& scenario, const LoadedScenario& loaded,
                                      const ScenarioRequest& request, const IntervalTable& intervals,
                                      const std::string& tool_version) {
  ScenarioOutcome out;
  if (std::string note = idle_gpu_note(scenario); !note.empty()) out.notes.push_back(std::move(note));
  if (scenario.mixed_nodes) {  // the headline figures keep the one-type job, as the straggler report keeps its base
    out.notes.push_back("step_time_s and the rates are the job with every node a " + scenario.cluster.node.name +
                        "; the job with its " + std::to_string(scenario.mixed_nodes->nodes) + " " +
                        scenario.mixed_nodes->node_name + " nodes is mixed.step_time_s.job and mixed.samples_per_s");
  }
  out.training = run_training_scenario(scenario, loaded.root, intervals, tool_version, request.record_timeline, request.exact,
                                       /*check_assumptions=*/true, request.step_progress);
  out.record = out.training->record;
  if (std::string w = out_of_memory_warning(scenario, out.training->step); !w.empty()) out.warnings.push_back(std::move(w));
  return out;
}

ScenarioOutcome run_scenario(const LoadedScenario& scenario, const ScenarioRequest& request, const SpecCatalog& catalog,
                             const IntervalTable& intervals, const std::string& tool_version) {
  switch (scenario.kind) {
    case ScenarioKind::training:
    {
      TrainingScenario training = parse_training_scenario(scenario.root, catalog, scenario.name);
      training.name = scenario.name;  // with the --set values
      return run_loaded_training(training, scenario, request, intervals, tool_version);
    }
    case ScenarioKind::serve:
      return run_serve(scenario, request, catalog, tool_version);
    case ScenarioKind::mpi:
      return run_mpi(scenario, catalog, tool_version);
    case ScenarioKind::plan:
      throw ConfigError(scenario.root.at("kind").loc(),
                        "a plan searches many scenarios: run it with `hpcsim plan " + request.file + "`");
    case ScenarioKind::schedule:
      break;  // runnable_scenario_kind refused it: job lists run with hpcsim schedule
  }
  throw ConfigError(scenario.root.loc(), "scenario kind '" + std::string(to_string(scenario.kind)) + "' cannot be run");
}

std::string out_of_memory_warning(const TrainingScenario& scenario, const TrainingStepReport& report, const std::string& where) {
  if (report.result.fits_in_memory) return {};
  const TrainingMemory& m = report.memory;
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  std::ostringstream w;
  w << where << (where.empty() ? "" : ": ") << "out of memory: the step needs " << m.total() / kGiB
    << " GiB per GPU (weights " << m.weights / kGiB << ", gradients " << m.gradients / kGiB << ", optimizer state "
    << m.optimizer_state / kGiB << ", activations " << m.activations / kGiB << ", workspace " << m.workspace / kGiB
    << " GiB) but the " << scenario.cluster.node.gpu.name << " has " << scenario.cluster.node.gpu.memory_bytes() / kGiB
    << " GiB; timings assume it fitted";
  return w.str();
}

}  // namespace hpcsim

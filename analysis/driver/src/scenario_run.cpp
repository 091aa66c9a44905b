#include "driver/scenario_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "driver/serve_run.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/serving/serve_scenario.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim {

namespace {

// The file's sizes of its own model that a --set workload.model=NAME does not take are dropped.
std::string drop_other_model_sizes(ConfigNode& root, const std::vector<std::string>& overrides) {
  bool model_set = false;
  std::vector<std::string> set_keys;
  for (const std::string& flag : overrides) {
    const std::string key = flag.substr(0, flag.find('='));
    model_set = model_set || key == "workload.model";
    set_keys.push_back(key);
  }
  ConfigNode* workload = root.find("workload");
  const ConfigNode* model = workload != nullptr ? workload->find("model") : nullptr;
  if (!model_set || model == nullptr || !model->is_scalar()) return {};
  const std::vector<std::string> takes = model_size_keys(model->as_string());
  std::string dropped;
  for (const char* key : {"seq_len", "resolution", "layers", "hidden", "heads", "ffn", "vocab"}) {
    if (!workload->has(key) || std::find(takes.begin(), takes.end(), key) != takes.end()) continue;
    if (std::find(set_keys.begin(), set_keys.end(), std::string("workload.") + key) != set_keys.end()) continue;
    workload->erase(key);
    dropped += (dropped.empty() ? "" : ", ") + std::string(key);
  }
  if (dropped.empty()) return {};
  return "--set workload.model=" + model->as_string() + ": the file's " + dropped + " (sizes of its own model) do not apply to " +
         model->as_string() + " and are dropped";
}

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
  const ServeScenario scenario = parse_serve_scenario(loaded.root, catalog, loaded.name);
  ServeRun run;
  if (!request.serve_rates.empty()) {
    run = serve_load_sweep(scenario, request.serve_rates);
  } else if (request.serve_target_p99_s > 0) {
    run = serve_replica_search(scenario, request.serve_target_p99_s, request.serve_max_replicas);
  } else {
    run = serve_once(scenario);
  }
  ScenarioOutcome out;
  out.cannot_meet = run.cannot_meet;
  out.record.report = std::move(run.report);
  out.record.scenario_text = to_yaml_text(loaded.root);
  out.record.tool_version = tool_version;
  out.record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

}  // namespace

LoadedScenario load_scenario(const ScenarioRequest& request) {
  LoadedScenario loaded;
  loaded.root = load_config(request.file, request.overrides);
  loaded.kind = runnable_scenario_kind(loaded.root);
  if (loaded.kind == ScenarioKind::training) {
    if (std::string note = drop_other_model_sizes(loaded.root, request.overrides); !note.empty()) {
      loaded.notes.push_back(std::move(note));
    }
  }
  loaded.name = std::filesystem::path(request.file).stem().string();
  return loaded;
}

ScenarioOutcome run_loaded_training(const TrainingScenario& scenario, const LoadedScenario& loaded,
                                      const ScenarioRequest& request, const IntervalTable& intervals,
                                      const std::string& tool_version) {
  ScenarioOutcome out;
  if (std::string note = idle_gpu_note(scenario); !note.empty()) out.notes.push_back(std::move(note));
  out.training = run_training_scenario(scenario, loaded.root, intervals, tool_version, request.record_timeline, request.exact);
  out.record = out.training->record;
  if (std::string w = out_of_memory_warning(scenario, out.training->step); !w.empty()) out.warnings.push_back(std::move(w));
  return out;
}

ScenarioOutcome run_scenario(const LoadedScenario& scenario, const ScenarioRequest& request, const SpecCatalog& catalog,
                             const IntervalTable& intervals, const std::string& tool_version) {
  switch (scenario.kind) {
    case ScenarioKind::training:
      return run_loaded_training(parse_training_scenario(scenario.root, catalog, scenario.name), scenario, request, intervals,
                                   tool_version);
    case ScenarioKind::serve:
      return run_serve(scenario, request, catalog, tool_version);
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

#include "workloads/scheduling/training_job_timer.h"

#include <sstream>
#include <stdexcept>
#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/yaml_text.h"
#include "models/platform/platform.h"
#include "workloads/scenario/simulate_scenario.h"
#include "workloads/training/training_step_job.h"

namespace hpcsim {

struct TrainingJobTimer::Workload {
  TrainingScenario scenario;  // on a cluster of the job's nodes: its model, batch, layout and framework
  TrainingStepConfig run;
  int nodes = 1;
  std::string name;
};

namespace {

ConfigNode scalar(const std::string& text, const SourceLoc& at) { return ConfigNode::make_scalar(text, at); }

// The scenario a job's sections make on a cluster of the job's own nodes (the platform's node type and
// network): parse_training_scenario checks it as it checks `hpcsim run`'s, and resolves dp over the job's GPUs.
// Errors in the sections are at their keys; what only the cluster part decides is at the training key.
TrainingScenario job_scenario(const ClusterConfig& cluster, const SpecCatalog& catalog, const TrainingJobSpec& spec) {
  const SourceLoc& at = spec.where;
  ConfigNode c = ConfigNode::make_map(at);
  c.set("node", scalar(cluster.node.name, at), at);
  c.set("nodes", scalar(std::to_string(spec.nodes), at), at);
  c.set("gpus_per_node", scalar(std::to_string(cluster.gpus_per_node), at), at);
  if (cluster.network) c.set("network", scalar(cluster.network->name, at), at);
  ConfigNode root = ConfigNode::make_map(at);
  root.set("cluster", std::move(c), at);
  root.set("workload", spec.workload, spec.workload.loc());
  root.set("parallelism", spec.parallelism, spec.parallelism.loc());
  TrainingScenario s;
  try {
    s = parse_training_scenario(root, catalog, spec.workload.get_string("model"));
  } catch (const ConfigError& e) {  // "the cluster" in its messages is the job's share of it
    throw ConfigError(e.where(), "a training job on " + std::to_string(spec.nodes) + " nodes (" +
                                     std::to_string(spec.nodes * cluster.gpus_per_node) + " GPUs): " + e.message());
  }
  s.cluster = cluster;
  s.cluster.nodes = spec.nodes;  // as the job counts it (JobPlacement::job_view)
  if (const ConfigNode* d = spec.workload.find("dataset")) {
    throw ConfigError(d->loc(), "a training job in a queue reads no dataset (its input pipeline is not modelled here)");
  }
  if (const ConfigNode* l = spec.workload.find("sequence_lengths")) {
    throw ConfigError(l->loc(), "a training job in a queue has one sequence length (no sequence_lengths mix)");
  }
  return s;
}

std::string gib(double bytes) {
  std::ostringstream out;
  out.precision(3);
  out << bytes / (1024.0 * 1024 * 1024) << " GiB";
  return out.str();
}

}  // namespace

TrainingJobTimer::TrainingJobTimer(ClusterConfig cluster, const SpecCatalog& catalog,
                                   const std::vector<TrainingJobSpec>& jobs,
                                   const std::function<void(std::size_t, std::size_t)>& after_each)
    : cluster_(std::move(cluster)), shapes_(cluster_) {
  // Each job is timed alone on the whole cluster's fabric, which costs what a run of that many GPUs costs.
  if (!jobs.empty()) {
    check_count(CountLimit::gpus, static_cast<double>(cluster_.nodes) * cluster_.gpus_per_node, jobs.front().where,
                "the cluster's fabric (" + std::to_string(cluster_.nodes) + " nodes x " +
                    std::to_string(cluster_.gpus_per_node) + " GPUs), on which each training job is timed,");
  }
  std::map<std::string, int> seen;  // the sections as text, with the node count -> workload
  for (const TrainingJobSpec& spec : jobs) {
    if (spec.nodes > cluster_.nodes) {
      throw ConfigError(spec.where, "the job asks for " + std::to_string(spec.nodes) + " nodes; the cluster has " +
                                        std::to_string(cluster_.nodes));
    }
    const std::string identity =
        std::to_string(spec.nodes) + "\n" + to_yaml_text(spec.workload) + "\n" + to_yaml_text(spec.parallelism);
    auto [it, fresh] = seen.emplace(identity, static_cast<int>(workloads_.size()));
    if (fresh) {
      auto w = std::make_unique<Workload>();
      w->scenario = job_scenario(cluster_, catalog, spec);
      w->run = training_step_config(w->scenario);
      w->nodes = spec.nodes;
      w->name = w->scenario.name;
      TrainingStepReport report;
      try {
        report = simulate(*w, shapes_.compact(spec.nodes));
      } catch (const std::invalid_argument& e) {
        throw ConfigError(spec.where, std::string("the job's training step cannot run: ") + e.what());
      }
      if (!report.result.fits_in_memory) {
        throw ConfigError(spec.workload.loc(),
                          "the job's model does not fit in GPU memory on " + std::to_string(spec.nodes) +
                              " nodes: it needs " + gib(report.memory.total()) + " per GPU, the " +
                              cluster_.node.gpu.name + " has " + gib(cluster_.node.gpu.memory_bytes()));
      }
      step_memo_.emplace(std::pair{it->second, shapes_.key(shapes_.compact(spec.nodes))}, report.result.step_time_s);
      workloads_.push_back(std::move(w));
    }
    kinds_.push_back({it->second, spec.steps});
    if (after_each) after_each(kinds_.size(), jobs.size());
  }
}

TrainingJobTimer::~TrainingJobTimer() = default;

const TrainingJobTimer::Kind& TrainingJobTimer::kind(int k) const {
  if (k < 0 || k >= kinds()) {
    throw std::invalid_argument("training job kind " + std::to_string(k) + " outside 0.." + std::to_string(kinds() - 1));
  }
  return kinds_[static_cast<std::size_t>(k)];
}

TrainingStepReport TrainingJobTimer::simulate(const Workload& w, const std::vector<int>& nodes) {
  ++simulations_;
  Platform platform(cluster_);
  const JobId id = platform.attach(w.name, nodes);
  TrainingStepJob step(platform, id, w.scenario.workload.built, w.run);
  step.start();
  platform.sim().run();
  if (!step.finished()) throw std::logic_error("training job " + w.name + ": the step did not finish");
  return step.report();
}

double TrainingJobTimer::step_s(int k, const std::vector<int>& node_ids) {
  const Kind& job = kind(k);
  const Workload& w = *workloads_[static_cast<std::size_t>(job.workload)];
  if (static_cast<int>(node_ids.size()) != w.nodes) {
    throw std::invalid_argument("training job " + w.name + " asks for " + std::to_string(w.nodes) + " nodes, given " +
                                std::to_string(node_ids.size()));
  }
  std::pair<int, std::vector<int>> key{job.workload, shapes_.key(node_ids)};
  if (const auto it = step_memo_.find(key); it != step_memo_.end()) return it->second;
  const double step = simulate(w, shapes_.timed_nodes(key.second)).result.step_time_s;
  step_memo_.emplace(std::move(key), step);
  return step;
}

double TrainingJobTimer::run_s(int k, const std::vector<int>& node_ids) {
  return static_cast<double>(kind(k).steps) * step_s(k, node_ids);
}

double TrainingJobTimer::estimate_s(int k) {
  const Kind& job = kind(k);
  return run_s(k, shapes_.compact(workloads_[static_cast<std::size_t>(job.workload)]->nodes));
}

RunTimeHook TrainingJobTimer::hook() {
  return [this](const BatchJob& job, const std::vector<int>& nodes) { return run_s(job.kind, nodes); };
}

}  // namespace hpcsim

#include "workloads/scheduling/partition_training_timers.h"

#include <map>
#include <stdexcept>
#include <string>

#include "configs/config_error.h"

namespace hpcsim {

PartitionTrainingTimers::PartitionTrainingTimers(const std::vector<ClusterConfig>& clusters, const SpecCatalog& catalog,
                                                 const std::vector<TrainingJobSpec>& jobs,
                                                 const std::vector<int>& job_partition,
                                                 const std::function<void(std::size_t, std::size_t)>& after_each) {
  if (job_partition.size() != jobs.size()) throw std::invalid_argument("one partition per training job");
  // Node types in order of first use: (name, GPUs per node) -> the partition whose cluster stands for it.
  std::map<std::pair<std::string, int>, int> type_of;
  std::vector<int> type_cluster;
  std::vector<std::vector<TrainingJobSpec>> specs;
  where_.resize(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const int p = job_partition[k];
    if (p < 0 || p >= static_cast<int>(clusters.size())) throw std::invalid_argument("training job outside the partitions");
    const ClusterConfig& c = clusters[static_cast<std::size_t>(p)];
    if (c.gpus_per_node < 1) {
      throw ConfigError(jobs[k].where, "a training job in a partition of " + c.node.name + " nodes: a " + c.node.name +
                                           " has no GPUs to train on");
    }
    const auto [it, fresh] = type_of.emplace(std::pair{c.node.name, c.gpus_per_node}, static_cast<int>(specs.size()));
    if (fresh) {
      type_cluster.push_back(p);
      specs.emplace_back();
    }
    auto& list = specs[static_cast<std::size_t>(it->second)];
    where_[k] = {it->second, static_cast<int>(list.size())};
    list.push_back(jobs[k]);
  }
  std::size_t done = 0;
  for (std::size_t t = 0; t < specs.size(); ++t) {
    timers_.push_back(std::make_unique<TrainingJobTimer>(
        clusters[static_cast<std::size_t>(type_cluster[t])], catalog, specs[t],
        [&](std::size_t, std::size_t) {
          if (after_each) after_each(++done, jobs.size());
        }));
  }
}

PartitionTrainingTimers::~PartitionTrainingTimers() = default;

const std::pair<int, int>& PartitionTrainingTimers::at(int kind) const {
  if (kind < 0 || kind >= static_cast<int>(where_.size())) {
    throw std::invalid_argument("training job kind " + std::to_string(kind) + " outside 0.." +
                                std::to_string(static_cast<int>(where_.size()) - 1));
  }
  return where_[static_cast<std::size_t>(kind)];
}

TrainingJobTimer& PartitionTrainingTimers::timer_of(int kind) {
  return *timers_[static_cast<std::size_t>(at(kind).first)];
}

double PartitionTrainingTimers::run_s(int kind, const std::vector<int>& node_ids) {
  return timer_of(kind).run_s(kind_in_timer(kind), node_ids);
}

double PartitionTrainingTimers::estimate_s(int kind) { return timer_of(kind).estimate_s(kind_in_timer(kind)); }

RunTimeHook PartitionTrainingTimers::hook() {
  return [this](const BatchJob& job, const std::vector<int>& nodes) { return run_s(job.kind, nodes); };
}

int PartitionTrainingTimers::simulations() const {
  int n = 0;
  for (const auto& t : timers_) n += t->simulations();
  return n;
}

}  // namespace hpcsim

#include "models/platform/platform.h"

#include <stdexcept>
#include <utility>

namespace hpcsim {

Platform::Platform(ClusterConfig cluster, Tenancy tenancy, std::optional<StorageSpec> storage)
    : cluster_(std::move(cluster)),
      tenancy_(tenancy),
      storage_(std::move(storage)),
      fair_share_(sim_),
      node_owner_(static_cast<std::size_t>(cluster_.nodes), -1) {
  fair_share_.keep_resource_stats(false);  // training and collective runs read no link statistics
  if (cluster_.nodes > 1 && !cluster_.network) {
    throw std::invalid_argument("a platform of " + std::to_string(cluster_.nodes) + " nodes needs a network");
  }
}

const ClusterFabric& Platform::fabric() {
  if (!fabric_) {
    fabric_.emplace(fair_share_, cluster_.node, cluster_.nodes, cluster_.gpus_per_node, cluster_.network,
                    cluster_.topology);
  }
  return *fabric_;
}

JobId Platform::attach(std::string name, std::vector<int> nodes) {
  if (tenancy_ == Tenancy::single && !jobs_.empty()) {
    throw std::invalid_argument("job " + name + ": this platform runs a single job (" + jobs_.front().name +
                                "); a shared platform runs several");
  }
  if (nodes.empty()) {
    for (int n = 0; n < cluster_.nodes; ++n) nodes.push_back(n);
  }
  std::vector<bool> listed(static_cast<std::size_t>(cluster_.nodes), false);
  for (const int n : nodes) {
    if (n < 0 || n >= cluster_.nodes) {
      throw std::invalid_argument("job " + name + ": node " + std::to_string(n) + " outside 0.." +
                                  std::to_string(cluster_.nodes - 1));
    }
    if (listed[n]) throw std::invalid_argument("job " + name + ": node " + std::to_string(n) + " listed twice");
    listed[n] = true;
    if (node_owner_[n] >= 0) {
      throw std::invalid_argument("job " + name + ": node " + std::to_string(n) + " is held by job " +
                                  jobs_[node_owner_[n]].name);
    }
  }
  const auto id = static_cast<JobId>(jobs_.size());
  for (const int n : nodes) node_owner_[n] = id;
  jobs_.push_back({std::move(name), std::move(nodes), true});
  return id;
}

void Platform::detach(JobId id) {
  const Job& j = job(id);
  if (!j.running) throw std::invalid_argument("job " + j.name + " was already detached");
  for (const int n : j.nodes) node_owner_[n] = -1;
  jobs_[id].running = false;
}

const Platform::Job& Platform::job(JobId id) const {
  if (id < 0 || id >= static_cast<JobId>(jobs_.size())) {
    throw std::invalid_argument("unknown job id " + std::to_string(id));
  }
  return jobs_[id];
}

const std::string& Platform::job_name(JobId id) const { return job(id).name; }
const std::vector<int>& Platform::job_nodes(JobId id) const { return job(id).nodes; }

int JobPlacement::gpu(int local) const {
  const int per_node = platform.gpus_per_node;
  if (local < 0 || local >= static_cast<int>(nodes.size()) * per_node) {
    throw std::invalid_argument("GPU " + std::to_string(local) + " outside the job's " +
                                std::to_string(nodes.size() * per_node) + " GPUs");
  }
  return nodes[local / per_node] * per_node + local % per_node;
}

std::vector<int> JobPlacement::gpus(const std::vector<int>& locals) const {
  std::vector<int> out;
  out.reserve(locals.size());
  for (const int g : locals) out.push_back(gpu(g));
  return out;
}

ClusterConfig JobPlacement::job_view() const {
  ClusterConfig c = platform;
  c.nodes = static_cast<int>(nodes.size());
  return c;
}

JobPlacement Platform::placement(JobId id) const { return {cluster_, job(id).nodes}; }

bool Platform::alone(JobId id) const {
  job(id);
  return tenancy_ == Tenancy::single;
}

int Platform::running_jobs() const {
  int n = 0;
  for (const Job& j : jobs_) n += j.running ? 1 : 0;
  return n;
}

}  // namespace hpcsim

#pragma once
// A platform: the machine a simulation runs on (the cluster, its storage system) with the engine that
// times it (the clock, the fair-share solver, the fabric's links). A driver (a CLI command, a scheduler, a
// study point) owns it and hands it to workloads, which run *on* it; several jobs can run on one platform
// at once, and their traffic shares its links.
//
// Jobs are attached to a set of nodes. A job's GPUs are numbered as on a cluster of its own (node-major
// over its nodes, in the order given); JobPlacement::gpu() maps them to the platform's GPUs. Whether a job is alone on
// the fabric is the platform's knowledge, not the job's assumption: a single-tenant platform holds one
// job, and only there may collectives replay repeated steps (nothing else can start traffic mid-step).
#include <optional>
#include <string>
#include <vector>

#include "models/network/cluster_fabric.h"
#include "models/platform/cluster_config.h"
#include "models/storage/storage_spec.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

namespace hpcsim {

using JobId = int;

// Where a job runs: the platform's whole cluster and the job's nodes on it, in the job's rank order.
struct JobPlacement {
  ClusterConfig platform;
  std::vector<int> nodes;
  // Platform GPU of the job's GPU `local` (node-major over the job's nodes); std::invalid_argument outside.
  int gpu(int local) const;
  std::vector<int> gpus(const std::vector<int>& locals) const;
  // The cluster as the job counts it: the platform's node type with only the job's nodes. Its topology
  // is the platform's, so build fabrics from `platform` (and map GPUs with gpu()), not from this.
  ClusterConfig job_view() const;
};

class Platform {
 public:
  enum class Tenancy { single, shared };

  // std::invalid_argument for several nodes without a network; a topology that cannot hold the nodes
  // throws (as ClusterFabric's constructor) when the fabric is first used.
  explicit Platform(ClusterConfig cluster, Tenancy tenancy = Tenancy::single,
                    std::optional<StorageSpec> storage = std::nullopt);
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const ClusterConfig& cluster() const { return cluster_; }
  const std::optional<StorageSpec>& storage() const { return storage_; }
  Tenancy tenancy() const { return tenancy_; }
  Simulator& sim() { return sim_; }
  FairShare& fair_share() { return fair_share_; }
  // Built on first use, so a driver can prepare its jobs (which may build idle platforms of their own)
  // before the machine's links take memory.
  const ClusterFabric& fabric();

  // Places a job on these nodes of the platform (every node when empty). std::invalid_argument for a
  // node outside the platform or listed twice, a node another running job holds, or a second job on a
  // single-tenant platform.
  JobId attach(std::string name, std::vector<int> nodes = {});
  // The job has ended: its nodes are free again. Unknown or detached ids throw std::invalid_argument.
  void detach(JobId job);

  const std::string& job_name(JobId job) const;
  const std::vector<int>& job_nodes(JobId job) const;
  JobPlacement placement(JobId job) const;
  // True when no other job can put traffic on the fabric while this one runs.
  bool alone(JobId job) const;
  int running_jobs() const;

 private:
  struct Job {
    std::string name;
    std::vector<int> nodes;
    bool running = true;
  };
  const Job& job(JobId id) const;

  ClusterConfig cluster_;
  Tenancy tenancy_;
  std::optional<StorageSpec> storage_;
  Simulator sim_;
  FairShare fair_share_;
  std::optional<ClusterFabric> fabric_;
  std::vector<Job> jobs_;
  std::vector<JobId> node_owner_;  // per node: the running job holding it, or -1
};

}  // namespace hpcsim

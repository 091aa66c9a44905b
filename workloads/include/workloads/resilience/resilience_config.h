#pragma once
// A training scenario's `resilience:` section: the run's length, its failure model (a configs/reliability
// spec), its checkpoints and its recovery, resolved against the job (its nodes, GPUs and leaf switches, its
// state bytes and storage) when the scenario is read, so every impossible value is a ConfigError at its key
// before anything is simulated: an interval shorter than the checkpoint's write, more spares than the job's
// nodes, no bandwidth to write a checkpoint at.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/storage/filesystem_spec.h"
#include "models/storage/storage_spec.h"
#include "workloads/resilience/checkpoint_io.h"
#include "workloads/resilience/long_run.h"
#include "workloads/resilience/reliability_spec.h"

namespace hpcsim {

// What the section is resolved against: the job as the scenario describes it.
struct ResilienceJob {
  int nodes = 1;
  int gpus = 1;
  std::vector<int> node_leaf;          // each node's leaf switch
  double state_bytes = 0;              // weights and optimizer state, the whole job's
  double tokens_per_step = 0;          // 0: the workload has no sequence length
  const StorageSpec* storage = nullptr;
  const FileSystemSpec* filesystem = nullptr;  // cluster.filesystem: checkpoints go there unless told otherwise
};

struct ResilienceConfig {
  ReliabilitySpec reliability;
  std::vector<JobFailureMode> job_modes;  // the spec's modes over the job's units
  int leaves = 1;                          // leaf switches the job's nodes hang off
  int nodes_per_leaf = 1;                  // the fullest leaf's nodes: what a leaf failure takes out
  // The run's length: steps (given, or tokens / tokens per step rounded up), or a compute time.
  std::optional<std::int64_t> steps;
  std::optional<double> compute_time_s;
  CheckpointIo io;
  std::optional<double> interval_s;  // absent: Daly's optimum (at least the write)
  CheckpointMode mode = CheckpointMode::sync;
  double snapshot_s = 0;
  double detection_s = 0, restart_s = 0, requeue_s = 0, spare_swap_s = 0, repair_s = 0;
  int spares = 0;
  std::int64_t replicas = 1000;
  std::uint64_t seed = 1;

  double mtti_s() const;
  // The checkpoint's cost to the job: the write (sync) or the snapshot (async).
  double checkpoint_cost_s() const { return mode == CheckpointMode::sync ? io.write_s : snapshot_s; }
  double young_interval_s() const;
  double daly_interval_s() const;
  double chosen_interval_s() const;  // the given interval, else Daly's (never below the write)
  LongRunModel model(double step_time_s) const;
  double work_s(double step_time_s) const;
};

const Schema& resilience_schema();
ResilienceConfig parse_resilience(const ConfigNode& section, const SpecCatalog& catalog, const ResilienceJob& job);

}  // namespace hpcsim

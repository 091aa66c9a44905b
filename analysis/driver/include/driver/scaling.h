#pragma once
// `hpcsim run --scale`: one scenario re-run at several GPU counts with only the data-parallel degree
// changed, and its throughput, speed-up and scaling efficiency per count.
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "workloads/scenario/training_scenario.h"

namespace hpcsim {

// "1,2,4,8" into GPU counts; anything but positive integers, or a count given twice, is a ConfigError at `flag`.
std::vector<int> parse_gpu_counts(const std::string& text, const std::string& flag);

struct ScaledConfig {
  ConfigNode root;     // the scenario tree with cluster.nodes, cluster.gpus_per_node, parallelism.dp set
  int nodes = 1;
  int dp = 1;
  bool weak = false;   // the scenario's global_batch was dropped to keep the per-replica batch
};

// The scenario tree `root` (already parsed as `base`) at `gpus` GPUs: nodes = ceil(gpus / node GPUs),
// gpus_per_node = min(gpus, node GPUs), dp = gpus / (tp x pp x cp); micro batch and model-parallel
// degrees kept. A fixed workload.global_batch is replaced by the base run's microbatches (weak scaling).
// ConfigError at `flag` when gpus is not a multiple of tp x pp x cp or needs a cluster.network it lacks.
ScaledConfig scale_config(const ConfigNode& root, const TrainingScenario& base, int gpus, const std::string& flag);

}  // namespace hpcsim

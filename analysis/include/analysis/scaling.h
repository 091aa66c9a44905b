#pragma once
// `hpcsim run --scale`: one scenario re-run at several GPU counts with only the data-parallel degree
// changed, and its throughput, speed-up and scaling efficiency per count.
#include <optional>
#include <string>
#include <vector>

#include "analysis/prediction_interval.h"
#include "configs/config_node.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

// "1,2,4,8" into GPU counts; anything but positive integers is a ConfigError at `flag`.
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

struct ScalingPoint {
  int gpus = 0, nodes = 0;
  TrainingStepResult result;
  std::optional<PredictionInterval> interval;  // the band of the true step time (prediction_interval.h)
};

struct ScalingRow {
  int gpus = 0, nodes = 0;
  double step_time_s = 0, samples_per_s = 0;
  std::optional<double> tokens_per_s;
  std::optional<PredictionInterval> interval;
  double speedup = 1;     // samples_per_s over the first point's
  double efficiency = 1;  // speedup / (gpus / first point's gpus)
};

std::vector<ScalingRow> scaling_rows(const std::vector<ScalingPoint>& points);
std::string scaling_to_table(const std::string& scenario, const std::vector<ScalingRow>& rows);
std::string scaling_to_json(const std::vector<ScalingRow>& rows);  // an array of objects, one per row
std::string scaling_to_csv(const std::vector<ScalingRow>& rows);

}  // namespace hpcsim

#pragma once
// A hyperparameter-search campaign on a batch queue: N trials drawn from a search space (grid or seeded
// random), submitted as a job array with a throttle (SLURM's --array=0-63%8), with or without ASHA early
// stopping (asha.h). Each rung segment of a trial is one job of `trial.nodes` nodes through the
// BatchScheduler; its run time is steps x the trial's step time (trial_step_time.h), its result the
// trial's learning curve at the rung's budget (learning_curve.h). When a job ends its slot goes to the
// next ASHA job (promotions first), submitted at that instant into the same scheduling pass.
//
// The campaign file (every key but the search space and curve is as in a scenario):
//   name: resnet50-lr-search
//   cluster: {node: dgx-a100-80gb, nodes: 8, network: ib-hdr}   # the machine the queue runs on
//   trial:                       # what each trial trains: a scenario's workload and parallelism
//     nodes: 1                   # nodes per trial job (its scenario's cluster.nodes)
//     workload: {model: resnet50, batch_per_gpu: 256, precision: bf16, optimizer: sgd}
//     parallelism: {}
//   search:
//     method: random             # or grid (every combination; trials, when given, takes the first N)
//     trials: 64                 # required for random
//     seed: 7                    # draws and evaluation noise (default 0)
//     space: {lr: {log_uniform: [1.0e-4, 1.0e-1]}, ...}   # search_space.h
//     budget: {min_steps: 250, max_steps: 6750, eta: 3}  # rungs; without early stopping only max_steps
//     early_stopping: asha       # or none (default)
//     max_concurrent: 8          # the array throttle; default: as many trials as the cluster holds
//   curve: {floor: 1.0, floor_penalty: 2.0, scale: 10, alpha: 0.5, skew: 0.5, noise: 0.01}  # optional
//   scheduler: {policy: easy, limit_factor: 1.25}   # queue policy; wall-time limit = factor x prediction
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "workloads/campaign/asha.h"
#include "workloads/campaign/learning_curve.h"
#include "workloads/campaign/search_space.h"
#include "workloads/scheduling/batch_queue.h"

namespace hpcsim {

enum class SearchMethod { random, grid };
inline constexpr EnumNames<SearchMethod, 2> kSearchMethodNames{
    {{{SearchMethod::random, "random"}, {SearchMethod::grid, "grid"}}}};
enum class EarlyStopping { none, asha };
inline constexpr EnumNames<EarlyStopping, 2> kEarlyStoppingNames{
    {{{EarlyStopping::none, "none"}, {EarlyStopping::asha, "asha"}}}};

struct CampaignSpec {
  std::string name;
  ConfigNode cluster;            // the `cluster:` section as written (each trial's scenario copies it)
  int cluster_nodes = 0;         // nodes of the queue
  int gpus_per_node = 0;
  int trial_nodes = 1;
  ConfigNode workload, parallelism;  // the trial's scenario sections
  SearchMethod method = SearchMethod::random;
  EarlyStopping early_stopping = EarlyStopping::none;
  std::uint64_t seed = 0;
  SearchSpace space;
  std::vector<TrialValues> trials;  // drawn or enumerated
  RungSchedule rungs;
  int max_concurrent = 0;
  LearningCurveModel curve;
  QueuePolicy policy = QueuePolicy::easy;
  double limit_factor = 1.25;
};

const Schema& campaign_schema();
// Validates the file and draws the trials; every error a ConfigError at its key. The trial's scenario
// itself (model, parallelism) is checked when its step time is first simulated.
CampaignSpec parse_campaign(const ConfigNode& root, const SpecCatalog& catalog, std::string name);

// A trial's seconds per training step on the nodes its job got (trial_step_time.h); with no nodes, the
// plan before its job starts.
using TrialStepTime = std::function<double(std::int64_t trial, const std::vector<int>& node_ids)>;

// One job of the campaign: a trial's rung segment.
struct CampaignJob {
  std::int64_t trial = 0;
  int rung = 0;
  std::int64_t steps = 0;     // trained in this job
  std::int64_t budget = 0;    // the trial's steps at its end
  QueueRun run;               // when and where it ran
  std::optional<double> loss; // observed at the budget; none when it was killed
};

struct CampaignTrial {
  TrialValues values;
  LearningCurve curve;
  int rung = -1;                // highest rung finished (-1: none)
  std::optional<double> loss;   // at that rung
  double known_s = 0;           // when that result was known
};

struct CampaignResult {
  std::vector<CampaignJob> jobs;      // in submit order
  std::vector<CampaignTrial> trials;  // in trial order (trials never started keep rung -1)
  std::optional<std::int64_t> best_trial;  // lowest loss among the trials at the highest rung reached
  double makespan_s = 0;                   // the last job's end
};

// Runs the campaign on its own simulator and queue; step_time gives each trial's seconds per step.
// node_leaf: the leaf switch of each node (the queue's topology-aware placement; empty: one switch).
CampaignResult run_campaign(const CampaignSpec& spec, const TrialStepTime& step_time, std::vector<int> node_leaf = {});

}  // namespace hpcsim

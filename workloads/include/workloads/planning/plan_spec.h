#pragma once
// A capacity plan (`kind: plan`, read by `hpcsim plan`): a training workload and how much of it to train, the
// hardware to consider (node types, node counts, networks with their switches, file systems), the parallel layouts to
// search, how to price and power it, and the constraints a configuration must meet.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/network/network_spec.h"
#include "models/node/node_spec.h"
#include "models/storage/filesystem_spec.h"
#include "models/power/power_model.h"
#include "workloads/pricing/node_price.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/dataset_spec.h"
#include "workloads/training/pipeline_schedule.h"

namespace hpcsim {

struct PlanNode {
  NodeSpec spec;
  NodePrice price;
};

struct PlanNetwork {
  NetworkSpec spec;
  SwitchSpec network_switch;
};

// A file system the plan considers, with what it costs per hour of the run (0: not priced).
struct PlanFileSystem {
  FileSystemSpec spec;
  double usd_per_hour = 0;
};

struct PlanSpec {
  std::string name;
  ConfigNode workload_node;     // the workload section as written (each simulated scenario gets a copy)
  WorkloadConfig workload;      // built once: the model and its sizes
  std::int64_t global_batch = 0;
  double samples_to_train = 0;  // train.samples, or train.tokens / tokens per sample
  std::vector<PlanNode> nodes;
  std::vector<int> node_counts;
  std::vector<PlanNetwork> networks;
  std::vector<PlanFileSystem> filesystems;  // empty: none searched (the data, if any, must be synthetic)
  std::optional<DatasetSpec> dataset;       // workload.dataset: read through the candidate's file system
  int loader_workers_per_gpu = 0;           // the workload's loader workers, else its framework's
  // Layout choices searched (every combination that is valid for the model and the GPU count).
  std::vector<int> tp, pp, micro_batch, zero;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  Pricing pricing = Pricing::cloud;
  double electricity_usd_per_kwh = 0;  // added to purchase pricing (cloud prices include power)
  double pue = 1;
  std::optional<double> max_time_to_train_s;
  std::optional<double> budget_usd;
  std::optional<double> max_energy_kwh;
  // The plan's resilience: section (docs/resilience.md) with its length set to the plan's steps: each
  // simulated configuration's scenario gets a copy, resolved against that configuration's job, and its time
  // to train, cost and energy become those of the whole run with failures (the mean over the replicas).
  std::optional<ConfigNode> resilience;
  int spares = 0;  // the section's hot spare nodes, paid for at the node price beside the job's
  int full_simulations = 12;  // screened configurations simulated in full (0: screen only)
  int top = 5;                // cheapest configurations printed
};

const Schema& plan_schema();
// Validates a plan tree and resolves its names (node types, their prices, networks, switches) through the
// catalog. A bad value is a ConfigError at its key, and the message names the key (e.g. "24 parsecs" for
// constraints.max_time_to_train).
PlanSpec parse_plan(const ConfigNode& root, const SpecCatalog& catalog, std::string name);

}  // namespace hpcsim

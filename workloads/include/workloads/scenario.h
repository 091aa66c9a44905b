#pragma once
// A scenario: the cluster, the workload and its parallelism, read from a resolved scenario YAML.
// Key names follow the scenario contract (cluster / workload / parallelism sections).
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "models/gpu/ops/optimizer.h"
#include "models/gpu/precision.h"
#include "models/network/network_spec.h"
#include "models/network/topology_spec.h"
#include "models/node/node_spec.h"
#include "workloads/layers/network.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim {

struct ClusterConfig {
  NodeSpec node;
  int nodes = 1;
  int gpus_per_node = 0;  // defaults to every GPU of the node
  std::optional<NetworkSpec> network;  // with cluster.mtu applied when given
  TopologySpec topology;               // crossbar unless cluster.topology says otherwise
  int gpus() const { return nodes * gpus_per_node; }
};

// What is trained: a zoo model (or a model YAML) with its size parameters, and how.
struct WorkloadConfig {
  std::string model;      // zoo name or path, as written
  ModelParams params;     // seq_len, resolution, layers, hidden, heads, ffn, vocab where given
  Model built;            // the model itself, built while the scenario is read
  int batch_per_gpu = 1;
  Precision precision = Precision::bf16;
  OptimizerKind optimizer = OptimizerKind::adamw;
  OptimizerImpl optimizer_impl = OptimizerImpl::foreach;  // PyTorch's default on CUDA
};

struct ParallelismConfig {
  int dp = 1;
};

struct Scenario {
  std::string name;
  ClusterConfig cluster;
  WorkloadConfig workload;
  ParallelismConfig parallelism;
};

const Schema& scenario_schema();
// The `cluster:` section alone (hpcsim collective reads it from any YAML file).
const Schema& cluster_schema();
ClusterConfig parse_cluster(const ConfigNode& cluster, const SpecCatalog& catalog);
// Validates the tree, resolves node and network names through the catalog and builds the model.
// Inconsistent values (dp larger than the GPU count, a precision the GPU lacks, an impossible model
// size) are ConfigErrors at their key.
Scenario parse_scenario(const ConfigNode& root, const SpecCatalog& catalog, std::string name);
// The workload section alone (validated by the caller's schema); builds the model.
WorkloadConfig parse_workload(const ConfigNode& workload, const std::filesystem::path& config_root);

}  // namespace hpcsim

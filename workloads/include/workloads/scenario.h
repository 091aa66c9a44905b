#pragma once
// A scenario: the cluster, the workload and its parallelism, read from a resolved scenario YAML.
// Key names follow the scenario contract (cluster / workload / parallelism sections).
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "models/gpu/precision.h"
#include "models/network/network_spec.h"
#include "models/network/topology_spec.h"
#include "models/node/node_spec.h"

namespace hpcsim {

struct ClusterConfig {
  NodeSpec node;
  int nodes = 1;
  int gpus_per_node = 0;  // defaults to every GPU of the node
  std::optional<NetworkSpec> network;  // with cluster.mtu applied when given
  TopologySpec topology;               // crossbar unless cluster.topology says otherwise
  int gpus() const { return nodes * gpus_per_node; }
};

// The transformer family the foundation simulates: a GPT-style decoder described by its shape.
struct WorkloadConfig {
  std::string model;      // "gpt"
  int batch_per_gpu = 1;
  int seq_len = 0;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int ffn = 0;            // defaults to 4 * hidden
  int vocab = 0;
  Precision precision = Precision::bf16;
  std::string optimizer;  // sgd, momentum, adam, adamw
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
// Validates the tree and resolves node and network names through the catalog. Inconsistent values
// (dp that does not match the GPU count, a precision the GPU lacks) are ConfigErrors at their key.
Scenario parse_scenario(const ConfigNode& root, const SpecCatalog& catalog, std::string name);

}  // namespace hpcsim

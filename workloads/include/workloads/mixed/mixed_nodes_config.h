#pragma once
// A training scenario's `mixed_nodes:` section (docs/resilience.md): some of the cluster's nodes are of a
// second node type (another GPU generation) in the same synchronous data-parallel job. Each data-parallel
// replica lies within one generation; the gradient all-reduce waits for the slowest replica, so the job
// runs at the slower generation's step unless the batch is split in proportion to the generations' speed.
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "models/gpu/precision.h"
#include "models/node/node_spec.h"
#include "models/platform/cluster_config.h"
#include "workloads/training/parallel_layout.h"

namespace hpcsim {

// even: every replica runs the file's micro batch (a framework's default: PyTorch's DistributedSampler
// gives each rank the same share); proportional: each generation's samples per replica in proportion to
// its speed (mixed_step.h).
enum class BatchSplit { even, proportional };
inline constexpr EnumNames<BatchSplit, 2> kBatchSplitNames{
    {{{BatchSplit::even, "even"}, {BatchSplit::proportional, "proportional"}}}};

struct MixedNodesConfig {
  std::string node_name;  // as written (a name in configs/nodes)
  NodeSpec node;          // the second node type; the cluster's network, topology and gpus_per_node
  int nodes = 1;          // how many of cluster.nodes are of this type, 1 .. cluster.nodes - 1
  BatchSplit batch_split = BatchSplit::even;
};

const Schema& mixed_nodes_schema();
// Resolves the node through the catalog and checks it against the job: nodes at least 1 and fewer than
// cluster.nodes, a node with fewer GPUs than cluster.gpus_per_node, a precision its GPU lacks, a topology
// that cannot hold its NICs, data-parallel replicas (tp x pp x cp GPUs) that would span both node types or
// GPUs left out of the job (parallelism.dp below the GPUs / (tp x pp x cp)): ConfigErrors at their keys.
MixedNodesConfig parse_mixed_nodes(const ConfigNode& section, const SpecCatalog& catalog, const ClusterConfig& cluster,
                                   const ParallelLayout& layout, Precision precision, const ConfigNode* dp_key);

}  // namespace hpcsim

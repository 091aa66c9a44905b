#pragma once
// The node type of each partition of a job list on a described cluster (`partitions[].node`, job_list.h):
// a machine of, say, 24 DGX A100 and 8 DGX H100 nodes. A partition's cluster is the whole cluster with its
// node type in place of cluster.node (same node count, network and topology), so node ids are the
// machine's; a partition without `node` gets the cluster as it is. Its GPUs per node are every GPU of its
// node type (cluster.gpus_per_node applies to cluster.node alone), its host memory the type's.
//
// The queue allocates by one leaf layout, the cluster's (node_leaves.h), so a partition's node type must
// put its nodes under the same leaves as cluster.node does (the same NIC ports and rails, in practice);
// a layout that differs is refused rather than half-modelled.
#include <vector>

#include "configs/catalog.h"
#include "models/platform/cluster_config.h"
#include "workloads/scheduling/job_list.h"

namespace hpcsim {

// Per partition (one entry when the list has no partitions table), the cluster its nodes make. ConfigError
// at the partition's `node` for an unknown node type or one whose nodes would sit under other leaves than
// node_leaf (the cluster's, indexed by node id) gives them. Call after queue_setup has checked the
// partitions fit the machine. A node type without GPUs is allowed: its partition runs `run:` jobs only.
std::vector<ClusterConfig> partition_clusters(const JobList& list, const ClusterConfig& cluster,
                                              const std::vector<int>& node_leaf, const SpecCatalog& catalog);
// With `--nodes N` the machine's nodes have no type: ConfigError at the first partition's `node`, if any.
void refuse_partition_nodes(const JobList& list);
// What one of the cluster's nodes offers a job (GPUs, host memory) for fit_to_nodes.
MachineNodes machine_nodes(const ClusterConfig& cluster);

}  // namespace hpcsim

#pragma once
// The outputs of the one-GPU and one-collective tools (`hpcsim occupancy`, `kernel`, `collective`,
// `microbench`) as JSON and tables: one renderer each, shared by the CLI and the Python module.
#include <string>
#include <vector>

#include "models/collectives/collective_kind.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/occupancy.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/warp_sim/microbenchmarks.h"
#include "models/platform/cluster_config.h"
#include "report/kernel_explain.h"

namespace hpcsim {

// `hpcsim occupancy`: blocks and warps per SM, occupancy and the limiter.
std::string occupancy_json(const Occupancy& result);
std::string occupancy_table(const Occupancy& result);

// `hpcsim kernel`: the op's time, rates, bound, occupancy and launches; with `explain`, each kernel explained.
std::string kernel_time_json(const GpuSpec& gpu, const std::string& op, const OpTime& t, bool explain,
                             const std::vector<KernelExplanation>& explained);
std::string kernel_time_table(const GpuSpec& gpu, const std::string& op, const OpTime& t, bool explain,
                              const std::vector<KernelExplanation>& explained);

// One message size of `hpcsim collective`.
struct CollectiveRow {
  double bytes = 0, seconds = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
};
std::string collective_json(const std::vector<CollectiveRow>& rows, CollectiveOp op, int ranks);
std::string collective_table(const std::vector<CollectiveRow>& rows, CollectiveOp op, int ranks, const ClusterConfig& c);

// `hpcsim microbench --format json`: the rows of WarpSim's twins.
std::string microbench_json(const GpuSpec& gpu, const std::vector<MicrobenchRow>& rows);

}  // namespace hpcsim

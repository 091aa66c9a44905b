#pragma once
// `hpcsim collective` (and the Python module's collective()): one collective over a cluster, nccl-tests
// style, size by size, each on an idle platform.
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "models/collectives/collective_kind.h"
#include "models/platform/cluster_config.h"
#include "report/gpu_tool_report.h"

namespace hpcsim {

// The command's flags, as given.
struct CollectiveRunOptions {
  std::string cluster_file, node, network, op, algo;
  std::optional<int> nodes, gpus;
  std::string size, min, max;  // one --size, or --min and --max (sizes double from min up to max)
  // Called before each size and at the end, with the sizes done and their count (a progress line: a ring
  // over 262,144 GPUs takes seconds a size, a sweep of 21 sizes a minute).
  std::function<void(std::size_t done, std::size_t sizes)> progress;
};

// Bad input named by its flag (the CLI prints it after "hpcsim collective: ").
struct CollectiveInputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct CollectiveRun {
  CollectiveOp op = CollectiveOp::allreduce;
  int ranks = 0;
  ClusterConfig cluster;
  std::vector<CollectiveRow> rows;
};

// The cluster from --cluster FILE (its `cluster:` section) or --node/--nodes/--network, the group of the
// first --gpus GPUs (default all), and one row per size. ConfigError or CollectiveInputError for bad input.
CollectiveRun run_collective(const CollectiveRunOptions& o, const SpecCatalog& catalog);

}  // namespace hpcsim

#include "models/collectives/algorithm_choices.h"

#include <stdexcept>

namespace hpcsim {

namespace {

bool same_gpus(const std::vector<int>& gpus, const CollectiveGroup& group) {
  if (static_cast<int>(gpus.size()) != group.size()) return false;
  for (int r = 0; r < group.size(); ++r) {
    if (gpus[r] != group.gpu(r)) return false;
  }
  return true;
}

}  // namespace

CollectiveAlgorithm AlgorithmChoices::select(CollectiveOp op, double bytes, const ClusterFabric& fabric,
                                             const FairShare& fair_share, const CollectiveGroup& group,
                                             const ScheduleOptions& options) {
  if (fabric_ && fabric_ != &fabric) throw std::invalid_argument("AlgorithmChoices: picks of another fabric");
  fabric_ = &fabric;
  for (const Choice& c : choices_) {
    // Sizes compare exactly: a pick for one size says nothing about the next size up.
    if (c.op == op && c.bytes == bytes && c.options.root == options.root &&
        c.options.chunk_bytes == options.chunk_bytes && c.options.max_chunks == options.max_chunks &&
        same_gpus(c.gpus, group)) {
      return c.algorithm;
    }
  }
  const CollectiveAlgorithm algorithm = select_algorithm(op, bytes, fabric, fair_share, group, options, kTransferBudget,
                                                         &estimates_);
  std::vector<int> gpus(static_cast<std::size_t>(group.size()));
  for (int r = 0; r < group.size(); ++r) gpus[static_cast<std::size_t>(r)] = group.gpu(r);
  choices_.push_back(Choice{op, bytes, options, std::move(gpus), algorithm});
  return algorithm;
}

}  // namespace hpcsim

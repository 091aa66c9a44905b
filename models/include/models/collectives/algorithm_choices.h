#pragma once
// select_algorithm's picks, remembered on one fabric. A training step issues dozens of gradient buckets of
// a few sizes over the same data-parallel group, and each pick routes every transfer of every candidate
// schedule: at 16,384 GPUs that was nearly all of a step's run time. The pick depends only on the request
// and the group (a fabric's routes and capacities never change), so a remembered pick is the one
// select_algorithm would make again.
#include <cstdint>
#include <vector>

#include "models/collectives/algorithm_selector.h"

namespace hpcsim {

class AlgorithmChoices {
 public:
  // select_algorithm(op, bytes, fabric, fair_share, group, options), computed once per distinct arguments.
  // std::invalid_argument when called with another fabric than the first call's.
  CollectiveAlgorithm select(CollectiveOp op, double bytes, const ClusterFabric& fabric, const FairShare& fair_share,
                             const CollectiveGroup& group, const ScheduleOptions& options);

 private:
  struct Choice {
    CollectiveOp op;
    double bytes;
    ScheduleOptions options;
    std::vector<int> gpus;  // the group, rank order
    CollectiveAlgorithm algorithm;
  };
  const ClusterFabric* fabric_ = nullptr;
  std::vector<Choice> choices_;  // a step makes a handful
  EstimateMemo estimates_;       // the patterns the picks estimated: sizes share them
};

}  // namespace hpcsim

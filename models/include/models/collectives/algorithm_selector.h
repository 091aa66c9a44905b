#pragma once
// An NCCL-like tuner: estimates each algorithm's time on the idle fabric and picks the fastest.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>

#include "models/collectives/collective_algorithms.h"
#include "models/collectives/collective_group.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/fair_share.h"

namespace hpcsim {

// Time of a schedule on the idle fabric, each step as long as its slowest transfer: route latency +
// bytes / (the lowest capacity on its path divided by the step's transfers crossing that resource).
// Exact when every transfer of each step sees the same bottleneck share (symmetric steps); otherwise an
// upper bound, since max-min sharing gives no flow less than that share.
double estimate_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fair_share,
                     const CollectiveGroup& group);

// What estimates on one fabric learned, for later estimates there (AlgorithmChoices keeps one): per group
// and per pattern whose transfers all move the same size, the pattern's transfers (ranks and rails) and the
// distinct (latency, bottleneck share) pairs they had. A later pattern with the same transfers, whatever
// its size, takes the same routes and crossings, so its time is the largest latency + bytes / share over
// those pairs: the same double estimate_time computes (max is exact and ignores order and repeats), with no
// route looked up. A pick per bucket size then routes each distinct pattern once, not once per size.
class EstimateMemo {
 public:
  EstimateMemo();
  ~EstimateMemo();
  EstimateMemo(const EstimateMemo&) = delete;
  EstimateMemo& operator=(const EstimateMemo&) = delete;
  struct Impl;

 private:
  friend double estimate_time(const CollectiveSchedule&, const ClusterFabric&, const FairShare&,
                              const CollectiveGroup&, EstimateMemo*);
  std::unique_ptr<Impl> impl_;
};

// estimate_time, reading and extending `memo` (null: none). std::invalid_argument for a memo of another
// fabric.
double estimate_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fair_share,
                     const CollectiveGroup& group, EstimateMemo* memo);

// At most estimate_time: each pattern timed from the transfers of its busiest sender alone (their routes
// only, so an all-pairs pattern over n ranks costs n - 1 routes, not n(n-1)). select_algorithm skips a
// schedule whose bound is no better than an estimate it already has.
double estimate_lower_bound(const CollectiveSchedule& schedule, const ClusterFabric& fabric,
                            const FairShare& fair_share, const CollectiveGroup& group);

// The default transfer budget: a schedule with more distinct transfers costs too much to estimate or simulate.
inline constexpr std::uint64_t kTransferBudget = 4'000'000;

// A collective whose cheapest schedule has more distinct transfers than hpcsim simulates in one call (an
// all-to-all over 4,096 GPUs is 16.8 million): simulating it would take minutes and gigabytes.
struct CollectiveTooLarge : std::runtime_error {
  CollectiveTooLarge(CollectiveOp op, int ranks, std::uint64_t transfers, std::uint64_t budget);
  CollectiveOp op;
  int ranks;
  std::uint64_t transfers;
};

// The refusal (with the fewest distinct transfers among the schedules that may run `op` over `group`: the
// forced algorithm's alone, else every selectable one's) when even that many exceed `transfer_budget`;
// nothing when one fits. For callers that refuse before running, naming their own flag.
std::optional<CollectiveTooLarge> over_transfer_budget(CollectiveOp op, const CollectiveGroup& group, double bytes,
                                                       std::optional<CollectiveAlgorithm> forced = {},
                                                       const ScheduleOptions& options = {},
                                                       std::uint64_t transfer_budget = kTransferBudget);

// The algorithm with the lowest estimate among those it may pick for `op` over `group` (selectable), skipping any whose
// distinct transfers exceed `transfer_budget` (too costly to estimate or to simulate); CollectiveTooLarge when
// none is left. Ties go to the earlier one in algorithms_for(op).
CollectiveAlgorithm select_algorithm(CollectiveOp op, double bytes, const ClusterFabric& fabric,
                                     const FairShare& fair_share, const CollectiveGroup& group,
                                     const ScheduleOptions& options = {},
                                     std::uint64_t transfer_budget = kTransferBudget, EstimateMemo* memo = nullptr);

}  // namespace hpcsim

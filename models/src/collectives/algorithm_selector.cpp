#include "models/collectives/algorithm_selector.h"

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

namespace hpcsim {

namespace {

// Working state of one estimate: transfers crossing each resource (sized as routes come: the fabric adds a
// switch link's resource when a route first crosses it) and the route being read.
struct Scratch {
  std::vector<int> crossing;
  Hop hop;
};

// The slowest of `transfers` run together on the idle fabric: route latency + bytes / (the lowest capacity
// on its path divided by the transfers crossing that resource). Given a subset of a step's transfers it is
// at most the step's time: fewer crossings leave every share as large or larger.
double slowest_transfer(std::span<const Transfer> transfers, const ClusterFabric& fabric, const FairShare& fs,
                        const CollectiveGroup& group, Scratch& s) {
  // Routes are looked up twice (count the crossings, then take shares) rather than kept: an all-pairs
  // pattern over 1,024 GPUs has a million transfers, and caching or storing their routes cost more time and
  // memory than the simulation the estimate chooses.
  const auto route = [&](const Transfer& t) -> const Hop& {
    return fabric.route_once(group.gpu(t.src), group.gpu(t.dst), t.rail, s.hop);
  };
  for (const Transfer& t : transfers) {
    const Hop& hop = route(t);
    if (s.crossing.size() < fs.resource_count()) s.crossing.resize(fs.resource_count(), 0);
    for (const ResourceId r : hop.path) ++s.crossing[r];
  }
  double slowest = 0;
  for (const Transfer& t : transfers) {
    const Hop& hop = route(t);
    double share = std::numeric_limits<double>::infinity();
    for (const ResourceId r : hop.path) share = std::min(share, fs.capacity(r) / s.crossing[r]);
    slowest = std::max(slowest, hop.latency_s + t.bytes / share);
  }
  std::fill(s.crossing.begin(), s.crossing.end(), 0);
  return slowest;
}

// The transfers of the rank that sends the most (the first such rank): on an all-pairs pattern its
// n - 1 transfers load its own links as the whole pattern does.
void busiest_sender(const std::vector<Transfer>& transfers, int ranks, std::vector<Transfer>& out) {
  std::vector<int> sent(static_cast<std::size_t>(ranks), 0);
  for (const Transfer& t : transfers) ++sent[static_cast<std::size_t>(t.src)];
  const int src = static_cast<int>(std::max_element(sent.begin(), sent.end()) - sent.begin());
  out.clear();
  for (const Transfer& t : transfers) {
    if (t.src == src) out.push_back(t);
  }
}

// Sum over the schedule's steps of each pattern's time, `part` choosing which of a pattern's transfers count.
template <typename Part>
double schedule_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                     const CollectiveGroup& group, Part part) {
  Scratch scratch;
  std::vector<double> pattern_time(schedule.patterns(), -1);
  std::vector<Transfer> transfers;
  double total = 0;
  for (int step = 0; step < schedule.steps(); ++step) {
    const int p = schedule.pattern(step);
    if (pattern_time[p] < 0) {
      schedule.transfers(p, transfers);
      pattern_time[p] = slowest_transfer(part(transfers), fabric, fs, group, scratch);
    }
    total += pattern_time[p];
  }
  return total;
}

}  // namespace

double estimate_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                     const CollectiveGroup& group) {
  return schedule_time(schedule, fabric, fs, group,
                       [](const std::vector<Transfer>& all) { return std::span<const Transfer>(all); });
}

double estimate_lower_bound(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                            const CollectiveGroup& group) {
  std::vector<Transfer> some;
  return schedule_time(schedule, fabric, fs, group, [&](const std::vector<Transfer>& all) {
    busiest_sender(all, group.size(), some);
    return std::span<const Transfer>(some);
  });
}

CollectiveAlgorithm select_algorithm(CollectiveOp op, double bytes, const ClusterFabric& fabric,
                                     const FairShare& fs, const CollectiveGroup& group,
                                     const ScheduleOptions& options, std::uint64_t transfer_budget) {
  std::vector<CollectiveAlgorithm> runnable;
  for (const CollectiveAlgorithm a : algorithms_for(op)) {
    if (unsupported_reason(op, a, group).empty()) runnable.push_back(a);
  }
  std::vector<CollectiveSchedule> schedules;
  std::vector<CollectiveAlgorithm> affordable;
  for (const CollectiveAlgorithm a : runnable) {
    CollectiveSchedule s = build_schedule(op, a, group, bytes, options);
    if (s.distinct_transfers() <= transfer_budget) {
      affordable.push_back(a);
      schedules.push_back(std::move(s));
    }
  }
  if (affordable.empty()) return runnable.front();
  std::size_t best = 0;
  double best_time = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < affordable.size(); ++i) {
    // A schedule with many transfers per rank (all-pairs: n(n-1)) is first bounded from its busiest
    // sender's routes alone; when even that bound is no faster than the best so far, it cannot win (the
    // estimate is at least the bound, and ties go to the earlier algorithm), and its n(n-1) routes are
    // never looked up. The choice is the one the full estimates make.
    const bool many_per_rank =
        schedules[i].distinct_transfers() > 4 * static_cast<std::uint64_t>(group.size()) * schedules[i].patterns();
    if (many_per_rank && estimate_lower_bound(schedules[i], fabric, fs, group) >= best_time) continue;
    const double t = estimate_time(schedules[i], fabric, fs, group);
    if (t < best_time) {
      best_time = t;
      best = i;
    }
  }
  return affordable[best];
}

}  // namespace hpcsim

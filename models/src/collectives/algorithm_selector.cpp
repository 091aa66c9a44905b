#include "models/collectives/algorithm_selector.h"

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

namespace hpcsim {

namespace {

// Working state of one estimate: transfers crossing each resource (sized as routes come: the fabric adds a
// switch link's resource when a route first crosses it), each resource's capacity as read so far (0: not
// read yet), the route being read, and the pattern's routes in flat arrays.
struct Scratch {
  std::vector<int> crossing;
  std::vector<double> capacity;
  Hop hop;
  std::vector<ResourceId> paths;      // every transfer's path, one after another
  std::vector<std::size_t> path_end;  // per transfer: where its path ends in `paths`
  std::vector<double> latency_s;      // per transfer
};

// The slowest of `transfers` run together on the idle fabric: route latency + bytes / (the lowest capacity
// on its path divided by the transfers crossing that resource). Given a subset of a step's transfers it is
// at most the step's time: fewer crossings leave every share as large or larger.
double slowest_transfer(std::span<const Transfer> transfers, const ClusterFabric& fabric, const FairShare& fs,
                        const CollectiveGroup& group, Scratch& s) {
  // Each route is looked up once and its resources kept in flat arrays (a few words per transfer), not as
  // routes: an all-pairs pattern over 1,024 GPUs has a million transfers, and caching their routes in the
  // fabric cost more time and memory than the simulation the estimate chooses; looking each up twice (to
  // count the crossings, then to take the shares) was most of a 16,384-GPU step's run time.
  s.paths.clear();
  s.path_end.clear();
  s.latency_s.clear();
  for (const Transfer& t : transfers) {
    const Hop& hop = fabric.route_once(group.gpu(t.src), group.gpu(t.dst), t.rail, s.hop);
    if (s.crossing.size() < fs.resource_count()) s.crossing.resize(fs.resource_count(), 0);
    for (const ResourceId r : hop.path) ++s.crossing[r];
    s.paths.insert(s.paths.end(), hop.path.begin(), hop.path.end());
    s.path_end.push_back(s.paths.size());
    s.latency_s.push_back(hop.latency_s);
  }
  if (s.capacity.size() < s.crossing.size()) s.capacity.resize(s.crossing.size(), 0);
  double slowest = 0;
  std::size_t begin = 0;
  for (std::size_t k = 0; k < transfers.size(); ++k) {
    double share = std::numeric_limits<double>::infinity();
    for (std::size_t i = begin; i < s.path_end[k]; ++i) {
      const ResourceId r = s.paths[i];
      double& capacity = s.capacity[r];
      if (capacity == 0) capacity = fs.capacity(r);  // capacities are > 0
      share = std::min(share, capacity / s.crossing[r]);
    }
    begin = s.path_end[k];
    slowest = std::max(slowest, s.latency_s[k] + transfers[k].bytes / share);
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

#include "models/collectives/algorithm_selector.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace hpcsim {

double estimate_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                     const CollectiveGroup& group) {
  std::vector<double> capacity;  // looked up once per resource
  std::vector<int> crossing;
  std::vector<double> pattern_time(schedule.patterns(), -1);
  std::vector<Transfer> transfers;
  std::vector<const Hop*> hops;  // the fabric's cached routes, not copies
  double total = 0;
  for (int step = 0; step < schedule.steps(); ++step) {
    const int p = schedule.pattern(step);
    if (pattern_time[p] < 0) {
      schedule.transfers(p, transfers);
      hops.clear();
      for (const Transfer& t : transfers) {
        hops.push_back(&fabric.route(group.gpu(t.src), group.gpu(t.dst), t.rail));
      }
      // Sized after routing: the fabric adds a switch link's resource when a route first crosses it.
      capacity.resize(fs.resource_count(), -1);
      crossing.resize(fs.resource_count(), 0);
      for (const Hop* h : hops) {
        for (const ResourceId r : h->path) ++crossing[r];
      }
      double slowest = 0;
      for (std::size_t i = 0; i < transfers.size(); ++i) {
        double share = std::numeric_limits<double>::infinity();
        for (const ResourceId r : hops[i]->path) {
          if (capacity[r] < 0) capacity[r] = fs.stats(r).capacity;
          share = std::min(share, capacity[r] / crossing[r]);
        }
        slowest = std::max(slowest, hops[i]->latency_s + transfers[i].bytes / share);
      }
      for (const Hop* h : hops) {
        for (const ResourceId r : h->path) crossing[r] = 0;
      }
      pattern_time[p] = slowest;
    }
    total += pattern_time[p];
  }
  return total;
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
    const double t = estimate_time(schedules[i], fabric, fs, group);
    if (t < best_time) {
      best_time = t;
      best = i;
    }
  }
  return affordable[best];
}

}  // namespace hpcsim

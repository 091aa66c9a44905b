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
  Hop scratch;
  double total = 0;
  for (int step = 0; step < schedule.steps(); ++step) {
    const int p = schedule.pattern(step);
    if (pattern_time[p] < 0) {
      schedule.transfers(p, transfers);
      // Routes are looked up twice (count the crossings, then take shares) rather than kept: an all-pairs
      // pattern over 1,024 GPUs has a million transfers, and caching or storing their routes cost more
      // time and memory than the simulation the estimate chooses.
      const auto route = [&](const Transfer& t) -> const Hop& {
        return fabric.route_once(group.gpu(t.src), group.gpu(t.dst), t.rail, scratch);
      };
      for (const Transfer& t : transfers) {
        const Hop& hop = route(t);
        // Sized as routes come: the fabric adds a switch link's resource when a route first crosses it.
        if (crossing.size() < fs.resource_count()) {
          capacity.resize(fs.resource_count(), -1);
          crossing.resize(fs.resource_count(), 0);
        }
        for (const ResourceId r : hop.path) ++crossing[r];
      }
      double slowest = 0;
      for (const Transfer& t : transfers) {
        const Hop& hop = route(t);
        double share = std::numeric_limits<double>::infinity();
        for (const ResourceId r : hop.path) {
          if (capacity[r] < 0) capacity[r] = fs.stats(r).capacity;
          share = std::min(share, capacity[r] / crossing[r]);
        }
        slowest = std::max(slowest, hop.latency_s + t.bytes / share);
      }
      std::fill(crossing.begin(), crossing.end(), 0);
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

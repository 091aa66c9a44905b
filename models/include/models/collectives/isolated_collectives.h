#pragma once
// Collectives timed on an idle copy of the fabric, once per size: the tensor- and context-parallel traffic
// of a training step or an LLM serving replica, which stays on its group's links.
#include <map>
#include <utility>
#include <vector>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/platform/platform.h"

namespace hpcsim {

// Times collectives over one small group on an idle fabric of their own, once per size: the tensor- and
// context-parallel traffic that stays on its group's links.
class IsolatedCollectives {
 public:
  IsolatedCollectives(const ClusterConfig& cluster, const std::vector<int>& gpus)
      : platform_(cluster), group_(CollectiveGroup::of(platform_.fabric(), gpus)) {}

  double time(CollectiveOp op, double bytes) {
    if (bytes <= 0 || group_.size() < 2) return 0;
    auto [it, fresh] = cache_.try_emplace({static_cast<int>(op), bytes}, 0.0);
    if (!fresh) return it->second;
    CollectiveRequest request;
    request.op = op;
    request.bytes = bytes;
    Simulator& sim = platform_.sim();
    const Time start = sim.now();
    Time end = start;
    start_collective(sim, platform_.fair_share(), platform_.fabric(), group_, request,
                     [&end](const CollectiveStats& s) { end = s.end; });
    sim.run();
    it->second = (end - start).to_seconds();
    return it->second;
  }

 private:
  Platform platform_;  // idle but for these collectives
  CollectiveGroup group_;
  std::map<std::pair<int, double>, double> cache_;
};

}  // namespace hpcsim

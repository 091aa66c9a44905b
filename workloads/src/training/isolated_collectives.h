#pragma once
// Collectives timed on an idle copy of the fabric, once per size: the tensor- and context-parallel traffic
// of a training step, which stays on its group's links. Private to the training step.
#include <map>
#include <utility>
#include <vector>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"
#include "workloads/scenario.h"

namespace hpcsim::training_detail {

// Times collectives over one small group on an idle fabric of their own, once per size: the tensor- and
// context-parallel traffic that stays on its group's links.
class IsolatedCollectives {
 public:
  IsolatedCollectives(const ClusterConfig& cluster, const std::vector<int>& gpus)
      : fair_share_(sim_),
        fabric_(fair_share_, cluster.node, cluster.nodes, cluster.gpus_per_node, cluster.network, cluster.topology),
        group_(CollectiveGroup::of(fabric_, gpus)) {}

  double time(CollectiveOp op, double bytes) {
    if (bytes <= 0 || group_.size() < 2) return 0;
    auto [it, fresh] = cache_.try_emplace({static_cast<int>(op), bytes}, 0.0);
    if (!fresh) return it->second;
    CollectiveRequest request;
    request.op = op;
    request.bytes = bytes;
    const Time start = sim_.now();
    Time end = start;
    start_collective(sim_, fair_share_, fabric_, group_, request, [&end](const CollectiveStats& s) { end = s.end; });
    sim_.run();
    it->second = (end - start).to_seconds();
    return it->second;
  }

 private:
  Simulator sim_;
  FairShare fair_share_;
  ClusterFabric fabric_;
  CollectiveGroup group_;
  std::map<std::pair<int, double>, double> cache_;
};

}  // namespace hpcsim::training_detail

#include "workloads/scheduling/queue_setup.h"

#include <algorithm>
#include <stdexcept>

#include "configs/units.h"

namespace hpcsim {

QueueSetup resolve_queue_setup(QueueSetup setup) {
  if (setup.nodes < 1) throw std::invalid_argument("a batch queue needs at least one node");
  if (!setup.node_leaf.empty() && static_cast<int>(setup.node_leaf.size()) != setup.nodes) {
    throw std::invalid_argument("the queue's leaf list names " + std::to_string(setup.node_leaf.size()) +
                                " nodes of " + std::to_string(setup.nodes));
  }
  if (setup.partitions.empty()) setup.partitions.push_back(Partition{"all", 0, setup.nodes});
  if (setup.qos.empty()) setup.qos.push_back(QosLevel{});
  if (setup.accounts.empty()) setup.accounts.push_back(Account{});
  std::vector<std::pair<int, int>> ranges;
  for (const Partition& p : setup.partitions) {
    if (p.nodes < 1 || p.first_node < 0 || p.first_node + p.nodes > setup.nodes) {
      throw std::invalid_argument("partition " + p.name + " is outside the queue's " + std::to_string(setup.nodes) +
                                  " nodes");
    }
    ranges.emplace_back(p.first_node, p.first_node + p.nodes);
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) throw std::invalid_argument("partitions share nodes");
  }
  return setup;
}

std::string job_refusal(const BatchJob& job, const QueueSetup& setup) {
  if (job.partition < 0 || job.partition >= static_cast<int>(setup.partitions.size())) return "unknown partition";
  if (job.account < 0 || job.account >= static_cast<int>(setup.accounts.size())) return "unknown account";
  if (job.qos < 0 || job.qos >= static_cast<int>(setup.qos.size())) return "unknown QoS";
  const Partition& p = setup.partitions[static_cast<std::size_t>(job.partition)];
  const int max_nodes = p.max_nodes > 0 ? std::min(p.max_nodes, p.nodes) : p.nodes;
  if (job.nodes < 1 || job.nodes > max_nodes) {
    return "needs " + std::to_string(job.nodes) + " nodes; partition " + p.name + " allows 1 to " +
           std::to_string(max_nodes);
  }
  if (!(job.estimate_s > 0)) return "has no positive wall-time limit";
  if (job.estimate_s > p.max_time_s) {
    return "asks for " + format_quantity(job.estimate_s, Dimension::time) + "; partition " + p.name + " allows " +
           format_quantity(p.max_time_s, Dimension::time);
  }
  if (job.kind < 0 && !(job.run_s > 0)) return "has no positive run time";
  return {};
}

}  // namespace hpcsim

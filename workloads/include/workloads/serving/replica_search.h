#pragma once
// Scale-out (`hpcsim serve --target-p99 50ms`): the fewest replicas whose simulated p99 latency meets a
// target at the config's load, dropping nothing (a dropped request counts as missing the target).
#include <string>

#include "workloads/serving/serving_summary.h"

namespace hpcsim {

struct ReplicaSearch {
  bool met = false;
  int replicas = 0;        // met: the fewest that meet the target
  ServingSummary summary;  // met: the run at that count; else the last count tried (if any)
  std::string reason;      // not met: why no count up to the limit can ("cannot meet ...")
};

// The search starts at the fewest replicas whose saturated capacity (workers x max_batch / service(max_batch)
// each) exceeds the arrival rate, then doubles its step until the target is met and bisects back; it
// assumes p99 does not rise as replicas are added. Not met, with the reason, when even a lone request's
// service (batch 1) exceeds the target, when the rate needs more than max_replicas replicas, when
// max_replicas replicas still miss it, or for an offline config (no load to meet a target at).
// std::invalid_argument for a target or max_replicas that is not positive.
ReplicaSearch fewest_replicas_for_p99(const ServingConfig& config, const BatchServiceTime& service, double target_p99_s,
                                      int max_replicas = 1024);

}  // namespace hpcsim

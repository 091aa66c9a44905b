#pragma once
// The latency-vs-load curve (`hpcsim serve --sweep-load`): the same endpoint run at each arrival rate.
#include <vector>

#include "workloads/serving/serving_summary.h"

namespace hpcsim {

struct LoadPoint {
  double rate_rps = 0;
  ServingSummary summary;
};

// One run per rate (the config's arrival process, or its trace stretched to the rate), in the given order.
// std::invalid_argument for a closed-loop config (it has no rate) or a rate that is not positive.
std::vector<LoadPoint> sweep_load(const ServingConfig& config, const BatchServiceTime& service,
                                  const std::vector<double>& rates_rps);

}  // namespace hpcsim

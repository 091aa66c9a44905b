#pragma once
// The latency-vs-load curve (`hpcsim serve --sweep-load`): the same endpoint run at each arrival rate.
#include <cstddef>
#include <functional>
#include <vector>

#include "workloads/serving/serving_summary.h"

namespace hpcsim {

struct LoadPoint {
  double rate_rps = 0;
  ServingSummary summary;
};

// One run per rate (the config's arrival process, or its trace stretched to the rate), in the given order.
// std::invalid_argument for a closed-loop config (it has no rate), a rate that is not positive, or one at which
// the requests would arrive past the simulated range.
// after_each(done, total): each rate's run finished (a long list of rates runs minutes), for a progress line.
std::vector<LoadPoint> sweep_load(const ServingConfig& config, const BatchServiceTime& service,
                                  const std::vector<double>& rates_rps,
                                  const std::function<void(std::size_t, std::size_t)>& after_each = {});

}  // namespace hpcsim

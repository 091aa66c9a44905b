#include "workloads/serving/load_sweep.h"

#include <cstdio>
#include <stdexcept>

#include "configs/input_limits.h"

namespace hpcsim {

std::vector<LoadPoint> sweep_load(const ServingConfig& config, const BatchServiceTime& service,
                                  const std::vector<double>& rates_rps,
                                  const std::function<void(std::size_t, std::size_t)>& after_each) {
  if (config.closed_loop()) throw std::invalid_argument("a load sweep varies rate_rps; a closed loop (concurrency) has no rate");
  std::vector<LoadPoint> points;
  points.reserve(rates_rps.size());
  for (const double rate : rates_rps) {
    if (!(rate > 0)) throw std::invalid_argument("a load sweep's rates must be positive");
    // The same bound as serving.rate_rps's: the arrivals must fall in the simulated range.
    if (static_cast<double>(config.requests) / rate > input_limits::max_time_s) {
      char text[256];
      std::snprintf(text, sizeof text, "--sweep-load rate %g: %lld requests arrive over more than 1e9 s (about 31.7 "
                    "years), the range hpcsim simulates: raise the rate or send fewer requests", rate,
                    static_cast<long long>(config.requests));
      throw std::invalid_argument(text);
    }
    ServingConfig at = config;
    at.rate_rps = rate;
    points.push_back({rate, summarize_serving(simulate_serving(at, service))});
    if (after_each) after_each(points.size(), rates_rps.size());
  }
  return points;
}

}  // namespace hpcsim

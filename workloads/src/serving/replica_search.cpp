#include "workloads/serving/replica_search.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>

#include "configs/units.h"

namespace hpcsim {

namespace {


// The arrival rate the endpoint must keep up with: the process's, or a trace's mean (0: a closed loop).
double offered_rate(const ServingConfig& config) {
  if (config.closed_loop()) return 0;
  if (config.rate_rps) return *config.rate_rps;
  const auto& t = config.trace;
  const double span = t.empty() ? 0 : t.back().time_s - t.front().time_s;
  return span > 0 ? static_cast<double>(t.size() - 1) / span : 0;
}

}  // namespace

ReplicaSearch fewest_replicas_for_p99(const ServingConfig& config, const BatchServiceTime& service, double target_p99_s,
                                      int max_replicas) {
  if (!(target_p99_s > 0) || max_replicas < 1) throw std::invalid_argument("a p99 target and max_replicas must be positive");
  ReplicaSearch out;
  const std::string target = "the p99 target of " + format_quantity(target_p99_s, Dimension::time);
  if (config.offline()) {
    out.reason = "cannot meet " + target + ": the scenario has no load (give serving.rate_rps, a trace or concurrency)";
    return out;
  }
  const double lone = service(config.request_batch);
  if (lone > target_p99_s) {
    out.reason = "cannot meet " + target + ": even a lone request takes " + format_quantity(lone, Dimension::time) + " (its own batch's service)";
    return out;
  }
  // Below this many replicas the queue grows without bound: workers x a full batch's requests per batch time each.
  const double per_replica_rps = config.workers * config.requests_per_batch() / service(config.full_batch());
  const double rate = offered_rate(config);
  const double needed = std::floor(rate / per_replica_rps) + 1;
  if (needed > max_replicas) {
    std::ostringstream why;
    why << "cannot meet " << target << ": " << rate << " requests/s exceed what " << max_replicas
        << " replicas can serve (" << per_replica_rps << " requests/s each at batch " << config.full_batch() << ")";
    out.reason = why.str();
    return out;
  }
  auto meets = [&](int replicas, ServingSummary& summary) {
    ServingConfig at = config;
    at.replicas = replicas;
    summary = summarize_serving(simulate_serving(at, service));
    return summary.dropped == 0 && summary.latency_p99_s <= target_p99_s;
  };
  // Gallop up from the stable count, then bisect the last step: (miss, hit]. The step in 64 bits: doubling
  // toward a max_replicas near 2^31 overflowed an int.
  int miss = static_cast<int>(needed) - 1, hit = 0;
  std::int64_t step = 1;
  ServingSummary hit_summary, last;
  for (int r = static_cast<int>(needed);; r = static_cast<int>(std::min<std::int64_t>(r + step, max_replicas)), step *= 2) {
    if (meets(r, last)) {
      hit = r;
      hit_summary = last;
      break;
    }
    miss = r;
    if (r == max_replicas) {
      std::ostringstream why;
      why << "cannot meet " << target << ": " << max_replicas << " replicas give p99 " << format_quantity(last.latency_p99_s, Dimension::time)
          << " with " << last.dropped << " of " << last.requests << " requests dropped";
      out.reason = why.str();
      out.summary = last;
      return out;
    }
  }
  while (hit - miss > 1) {
    const int mid = miss + (hit - miss) / 2;
    if (meets(mid, last)) {
      hit = mid;
      hit_summary = last;
    } else {
      miss = mid;
    }
  }
  out.met = true;
  out.replicas = hit;
  out.summary = hit_summary;
  return out;
}

}  // namespace hpcsim

#include "workloads/serving/serving_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpcsim {

double nearest_rank_percentile(std::vector<double>& values, double p) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p * static_cast<double>(values.size()))));
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(std::min(rank, values.size()) - 1);
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

ServingSummary summarize_serving(const ServingResult& result) {
  ServingSummary s;
  s.requests = static_cast<std::int64_t>(result.requests.size());
  s.replicas = result.replicas;
  s.offline = result.offline;
  s.offline_latency_s = result.offline_latency_s;
  s.request_batch = result.request_batch;
  std::vector<double> latency, queue;
  latency.reserve(result.requests.size());
  queue.reserve(result.requests.size());
  double latency_sum = 0, queue_sum = 0, batch_sum = 0;
  for (const ServedRequest& r : result.requests) {
    switch (r.outcome) {
      case RequestOutcome::dropped_queue_limit: ++s.dropped_queue_limit; continue;
      case RequestOutcome::dropped_timeout: ++s.dropped_timeout; continue;
      case RequestOutcome::served: break;
    }
    latency.push_back(r.latency_s());
    queue.push_back(r.queue_s());
    latency_sum += latency.back();
    queue_sum += queue.back();
    batch_sum += r.batch;
  }
  s.served = static_cast<std::int64_t>(latency.size());
  s.dropped = s.dropped_queue_limit + s.dropped_timeout;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double n = static_cast<double>(s.served);
  s.mean_batch = s.served > 0 ? batch_sum / n : nan;
  const double span = result.last_end_s - result.first_arrival_s;
  s.throughput_rps = span > 0 ? n / span : nan;
  s.utilization = span > 0 ? result.busy_worker_s / (static_cast<double>(result.replicas) * result.workers * span) : nan;
  if (result.front_end_threads > 0) {
    s.front_end_utilization =
        span > 0 ? result.busy_front_end_s / (static_cast<double>(result.replicas) * result.front_end_threads * span) : nan;
  }
  if (result.offline) {
    s.latency_p50_s = s.latency_p90_s = s.latency_p99_s = s.latency_mean_s = result.offline_latency_s;
    s.queue_p50_s = s.queue_p99_s = s.queue_mean_s = 0;
    return s;
  }
  s.latency_mean_s = s.served > 0 ? latency_sum / n : nan;
  s.queue_mean_s = s.served > 0 ? queue_sum / n : nan;
  s.latency_p50_s = nearest_rank_percentile(latency, 0.50);
  s.latency_p90_s = nearest_rank_percentile(latency, 0.90);
  s.latency_p99_s = nearest_rank_percentile(latency, 0.99);
  s.queue_p50_s = nearest_rank_percentile(queue, 0.50);
  s.queue_p99_s = nearest_rank_percentile(queue, 0.99);
  return s;
}

}  // namespace hpcsim

#pragma once
// What a serving run comes to: latency and queue-wait percentiles over the served requests, throughput,
// utilization and drops. Percentiles are nearest-rank (the ceil(p n)-th smallest), as schedule_report's.
//   throughput = served / (last batch end - first arrival); utilization = busy worker-seconds /
//   (replicas x workers x that span); with a front end, front_end_utilization = busy front-end
//   thread-seconds / (replicas x its threads x that span). Offline runs report the latency of one full batch on
//   an idle replica (the batch they run) as every latency percentile and no queue wait; their throughput is
//   the saturated one. Throughput counts requests; samples_per_s = throughput x request_batch.
// With nothing served, the latency and queue fields are NaN (undefined).
#include <cstdint>
#include <optional>
#include <vector>

#include "workloads/serving/serving_engine.h"

namespace hpcsim {

struct ServingSummary {
  std::int64_t requests = 0, served = 0, dropped = 0, dropped_queue_limit = 0, dropped_timeout = 0;
  double latency_p50_s = 0, latency_p90_s = 0, latency_p99_s = 0, latency_mean_s = 0;
  double queue_p50_s = 0, queue_p99_s = 0, queue_mean_s = 0;
  double throughput_rps = 0, utilization = 0, mean_batch = 0;  // mean_batch: samples per batch, by request
  int request_batch = 1;
  std::optional<double> front_end_utilization;  // only with a front end
  int replicas = 0;
  bool offline = false;
  double offline_latency_s = 0;

  double samples_per_s() const { return throughput_rps * request_batch; }
};

// The nearest-rank percentile (0 < p <= 1) of values, which it reorders; NaN when empty.
double nearest_rank_percentile(std::vector<double>& values, double p);

ServingSummary summarize_serving(const ServingResult& result);

}  // namespace hpcsim

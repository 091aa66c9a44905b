#pragma once
// The metric list of a serve scenario (`hpcsim serve`, kind: serve), whose names are its JSON contract:
//   latency_s.{p50,p90,p99,mean}, throughput_rps, utilization, queue_s.{p50,p99},
//   cost_per_million_requests_usd, replicas, dropped
// plus requests, served, mean_batch and offline. cost = replicas x price per replica-hour / (3600 x
// throughput) x 1e6: an endpoint is paid for while it runs, busy or not; undefined without a price.
// Undefined values (NaN in the summary: nothing served) are empty metrics.
#include <optional>
#include <string>
#include <vector>

#include "store/metric.h"
#include "workloads/serving/load_sweep.h"
#include "workloads/serving/serving_summary.h"

namespace hpcsim {

std::vector<Metric> serve_metrics(const ServingSummary& summary, std::optional<double> usd_per_replica_hour);
Report serve_report(const std::string& scenario, const ServingSummary& summary,
                    std::optional<double> usd_per_replica_hour);

// A load sweep as parallel arrays, one element per rate: sweep.rate_rps[i], sweep.latency_p50_s[i],
// sweep.latency_p90_s[i], sweep.latency_p99_s[i], sweep.latency_mean_s[i], sweep.queue_p99_s[i],
// sweep.throughput_rps[i], sweep.utilization[i], sweep.dropped[i], sweep.cost_per_million_requests_usd[i].
std::vector<Metric> load_sweep_metrics(const std::vector<LoadPoint>& points, std::optional<double> usd_per_replica_hour);

}  // namespace hpcsim

#include "report/serve_report.h"

#include <cmath>

namespace hpcsim {

namespace {

std::optional<double> defined(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }

std::optional<double> cost_per_million(const ServingSummary& s, std::optional<double> usd_per_replica_hour) {
  if (!usd_per_replica_hour || !(s.throughput_rps > 0)) return std::nullopt;
  return s.replicas * *usd_per_replica_hour / (3600.0 * s.throughput_rps) * 1e6;
}

}  // namespace

std::vector<Metric> serve_metrics(const ServingSummary& s, std::optional<double> usd_per_replica_hour) {
  std::vector<Metric> out = {
      {"latency_s.p50", defined(s.latency_p50_s), "s"},
      {"latency_s.p90", defined(s.latency_p90_s), "s"},
      {"latency_s.p99", defined(s.latency_p99_s), "s"},
      {"latency_s.mean", defined(s.latency_mean_s), "s"},
      {"throughput_rps", defined(s.throughput_rps), "1/s"},
      {"utilization", defined(s.utilization), "ratio"},
      {"queue_s.p50", defined(s.queue_p50_s), "s"},
      {"queue_s.p99", defined(s.queue_p99_s), "s"},
      {"cost_per_million_requests_usd", cost_per_million(s, usd_per_replica_hour), "USD"},
      {"replicas", static_cast<double>(s.replicas), "count"},
      {"dropped", static_cast<double>(s.dropped), "count"},
      {"requests", static_cast<double>(s.requests), "count"},
      {"served", static_cast<double>(s.served), "count"},
      {"mean_batch", defined(s.mean_batch), "count"},
      {"offline", s.offline ? 1.0 : 0.0, "bool"},
  };
  // The front end's threads, when the endpoint has one: what bounds it when they are busy and the workers not.
  if (s.front_end_utilization) out.push_back({"front_end_utilization", defined(*s.front_end_utilization), "ratio"});
  // Requests that carry several samples (serving.request_batch): the sample rate beside the request rate.
  if (s.request_batch > 1) out.push_back({"throughput_samples_per_s", defined(s.samples_per_s()), "1/s"});
  return out;
}

Report serve_report(const std::string& scenario, const ServingSummary& summary,
                    std::optional<double> usd_per_replica_hour) {
  return Report{scenario, "serve", serve_metrics(summary, usd_per_replica_hour), std::nullopt};
}

std::vector<Metric> load_sweep_metrics(const std::vector<LoadPoint>& points, std::optional<double> usd_per_replica_hour) {
  struct Column {
    const char* name;
    const char* unit;
    std::optional<double> (*value)(const LoadPoint&);
  };
  static const Column columns[] = {
      {"rate_rps", "1/s", [](const LoadPoint& p) { return defined(p.rate_rps); }},
      {"latency_p50_s", "s", [](const LoadPoint& p) { return defined(p.summary.latency_p50_s); }},
      {"latency_p90_s", "s", [](const LoadPoint& p) { return defined(p.summary.latency_p90_s); }},
      {"latency_p99_s", "s", [](const LoadPoint& p) { return defined(p.summary.latency_p99_s); }},
      {"latency_mean_s", "s", [](const LoadPoint& p) { return defined(p.summary.latency_mean_s); }},
      {"queue_p99_s", "s", [](const LoadPoint& p) { return defined(p.summary.queue_p99_s); }},
      {"throughput_rps", "1/s", [](const LoadPoint& p) { return defined(p.summary.throughput_rps); }},
      {"utilization", "ratio", [](const LoadPoint& p) { return defined(p.summary.utilization); }},
      {"dropped", "count", [](const LoadPoint& p) { return std::optional<double>(static_cast<double>(p.summary.dropped)); }},
  };
  std::vector<Metric> out;
  // Each column's elements adjacent, so the renderers see one array per name.
  for (const Column& c : columns) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      out.push_back({"sweep." + std::string(c.name) + "[" + std::to_string(i) + "]", c.value(points[i]), c.unit});
    }
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    out.push_back({"sweep.cost_per_million_requests_usd[" + std::to_string(i) + "]",
                   cost_per_million(points[i].summary, usd_per_replica_hour), "USD"});
  }
  // With a front end: its threads' load at each rate (where latency grows while queue_s stays flat).
  if (!points.empty() && points.front().summary.front_end_utilization) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::optional<double>& u = points[i].summary.front_end_utilization;
      out.push_back({"sweep.front_end_utilization[" + std::to_string(i) + "]", u ? defined(*u) : std::nullopt, "ratio"});
    }
  }
  return out;
}

}  // namespace hpcsim

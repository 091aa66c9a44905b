// The serve metric list: the JSON contract's names and the cost per million requests.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "report/serve_report.h"

using namespace hpcsim;

namespace {

const Metric& find(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics) {
    if (m.name == name) return m;
  }
  FAIL("no metric " << name);
  throw;
}

}  // namespace

TEST_CASE("serve metrics: the contract's names from a real run", "[serve_report]") {
  ServingConfig c;
  c.rate_rps = 150;
  c.requests = 5000;
  c.replicas = 2;
  const ServingSummary s = summarize_serving(simulate_serving(c, [](int) { return 0.01; }));
  const std::vector<Metric> m = serve_metrics(s, 3.6);
  for (const char* name : {"latency_s.p50", "latency_s.p90", "latency_s.p99", "latency_s.mean", "throughput_rps",
                           "utilization", "queue_s.p50", "queue_s.p99", "cost_per_million_requests_usd", "replicas",
                           "dropped"}) {
    CHECK(find(m, name).value.has_value());
  }
  CHECK(*find(m, "latency_s.p50").value >= 0.01);
  CHECK(*find(m, "replicas").value == 2);
  // 2 replicas at 3.6 USD/h are 0.002 USD/s; at the measured throughput that is 2000 / throughput USD per million.
  CHECK(*find(m, "cost_per_million_requests_usd").value == Approx(2000.0 / s.throughput_rps));
  CHECK(find(m, "cost_per_million_requests_usd").unit == "USD");
  CHECK_FALSE(find(serve_metrics(s, std::nullopt), "cost_per_million_requests_usd").value.has_value());
  CHECK(serve_report("ep", s, 1.0).kind == "serve");
}

TEST_CASE("serve metrics: nothing served leaves latencies undefined", "[serve_report]") {
  ServingSummary s;
  s.latency_p50_s = s.latency_p90_s = s.latency_p99_s = s.latency_mean_s = std::numeric_limits<double>::quiet_NaN();
  s.requests = s.dropped = 10;
  s.replicas = 1;
  const std::vector<Metric> m = serve_metrics(s, 1.0);
  CHECK_FALSE(find(m, "latency_s.p99").value.has_value());
  CHECK(*find(m, "dropped").value == 10);
}

TEST_CASE("load sweep metrics: one array element per rate", "[serve_report]") {
  ServingConfig c;
  c.requests = 2000;
  const auto points = sweep_load(c, [](int) { return 0.01; }, {20, 50});
  const std::vector<Metric> m = load_sweep_metrics(points, 1.0);
  CHECK(*find(m, "sweep.rate_rps[1]").value == 50);
  CHECK(*find(m, "sweep.latency_p99_s[0]").value < *find(m, "sweep.latency_p99_s[1]").value);
  CHECK(find(m, "sweep.cost_per_million_requests_usd[1]").value.has_value());
}

TEST_CASE("serve metrics: front-end utilization only for an endpoint with a front end", "[serve_report]") {
  ServingConfig c;
  c.requests = 2000;
  const auto bare = sweep_load(c, [](int) { return 0.001; }, {100, 400});
  auto has = [](const std::vector<Metric>& m, const std::string& name) {
    for (const Metric& x : m) {
      if (x.name == name) return true;
    }
    return false;
  };
  CHECK_FALSE(has(load_sweep_metrics(bare, 1.0), "sweep.front_end_utilization[0]"));
  CHECK_FALSE(has(serve_metrics(bare[0].summary, 1.0), "front_end_utilization"));
  // Two threads of 4 ms each carry at most 500 requests/s: 40 % busy at 200/s, 80 % at 400/s.
  c.front_end = FrontEnd{2, 0.004};
  const auto fronted = sweep_load(c, [](int) { return 0.001; }, {200, 400});
  const std::vector<Metric> m = load_sweep_metrics(fronted, 1.0);
  CHECK(*find(m, "sweep.front_end_utilization[0]").value == Approx(0.4).epsilon(0.05));
  CHECK(*find(m, "sweep.front_end_utilization[1]").value == Approx(0.8).epsilon(0.05));
  CHECK(*find(serve_metrics(fronted[1].summary, 1.0), "front_end_utilization").value ==
        Approx(0.8).epsilon(0.05));
}

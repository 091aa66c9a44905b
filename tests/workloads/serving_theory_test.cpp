// The serving engine against queueing theory (issue 16, item 5): one queue with Poisson arrivals at
// 100,000 requests, mean queue wait within 2 % of the closed forms. Loads are 0.5-0.7, where the standard
// error of the mean wait over 100k requests is about 0.5-0.7 % (docs/serving.md measures it over 20
// seeds), so a 2 % band is about three standard errors: a wrong engine fails it.
#include <catch2/catch.hpp>

#include <cmath>

#include "workloads/campaign/seeded_random.h"
#include "workloads/serving/serving_engine.h"
#include "workloads/serving/serving_summary.h"

using namespace hpcsim;

namespace {

ServingConfig poisson_queue(double rate_rps, int workers) {
  ServingConfig c;
  c.rate_rps = rate_rps;
  c.requests = 100000;
  c.seed = 7;
  c.replicas = 1;  // one shared queue: M/M/c is c workers behind it, not c queues behind a balancer
  c.workers = workers;
  return c;
}

// Exponential service of the given mean, drawn per batch from its own seeded stream.
BatchServiceTime exponential_service(double mean_s, std::uint64_t seed) {
  return [mean_s, seed, n = std::uint64_t{0}](int) mutable {
    return -mean_s * std::log1p(-uniform01(seeded_key({seed, 99, n++})));
  };
}

// Erlang C: the probability an arrival waits in an M/M/c queue with offered load a = lambda / mu.
double erlang_c(int c, double a) {
  double term = 1, sum = 1;  // a^k / k!, summed for k < c
  for (int k = 1; k < c; ++k) {
    term *= a / k;
    sum += term;
  }
  const double last = term * a / c;  // a^c / c!
  const double rho = a / c;
  return last / (1 - rho) / (sum + last / (1 - rho));
}

}  // namespace

TEST_CASE("M/D/1: mean queue wait matches Pollaczek-Khinchine within 2 %", "[serving][theory]") {
  const double service = 0.010, rho = 0.7, rate = rho / service;
  const ServingSummary s = summarize_serving(simulate_serving(poisson_queue(rate, 1), [&](int) { return service; }));
  const double expected = rho * service / (2 * (1 - rho));  // W_q = rho S / (2 (1 - rho)) for fixed S
  CHECK(s.served == 100000);
  CHECK(s.queue_mean_s == Approx(expected).epsilon(0.02));
  CHECK(s.latency_mean_s == Approx(expected + service).epsilon(0.02));
  CHECK(s.utilization == Approx(rho).epsilon(0.02));
}

TEST_CASE("M/M/1: mean queue wait matches rho / (mu - lambda) within 2 %", "[serving][theory]") {
  const double service = 0.010, rho = 0.5, rate = rho / service;
  const ServingSummary s =
      summarize_serving(simulate_serving(poisson_queue(rate, 1), exponential_service(service, 11)));
  const double expected = rho * service / (1 - rho);
  CHECK(s.queue_mean_s == Approx(expected).epsilon(0.02));
  CHECK(s.utilization == Approx(rho).epsilon(0.02));
}

TEST_CASE("M/M/c: c workers on one queue match Erlang C within 2 %", "[serving][theory]") {
  const int c = 4;
  const double service = 0.010, rho = 0.7, rate = rho * c / service;
  const ServingSummary s =
      summarize_serving(simulate_serving(poisson_queue(rate, c), exponential_service(service, 13)));
  const double a = rate * service;
  const double expected = erlang_c(c, a) / (c / service - rate);  // W_q = C(c, a) / (c mu - lambda)
  CHECK(s.queue_mean_s == Approx(expected).epsilon(0.02));
  CHECK(s.utilization == Approx(rho).epsilon(0.02));
}

TEST_CASE("Erlang C reduces to rho for one server", "[serving][theory]") {
  CHECK(erlang_c(1, 0.6) == Approx(0.6));
  CHECK(erlang_c(2, 1.0) == Approx(1.0 / 3.0));  // textbook: c = 2, a = 1 gives 1/3
}

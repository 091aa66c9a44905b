// The serving engine against queueing theory (issue 16, item 5): one queue with Poisson arrivals, mean
// queue wait against the closed forms, within 2 %.
//
// Sampling error decides what 2 % can mean. Over 100 seeds of one 100,000-request run each, the mean
// wait's relative standard deviation is 1.7 % (M/D/1, rho 0.7), 1.9 % (M/M/1, rho 0.5) and 3.3 %
// (M/M/4, rho 0.7), with no bias (the 100-seed means are within 0.3 % of theory): one run inside 2 % is
// partly luck. So each check runs independent 100,000-request replications (seeds 1..K) and compares
// their pooled mean; the test also asserts the replications' own standard error is under 0.7 %, so the
// 2 % band is at least three standard errors wide and a wrong engine fails it (docs/serving.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "sim-core/random.h"
#include "workloads/serving/serving_engine.h"
#include "workloads/serving/serving_summary.h"

using namespace hpcsim;

namespace {

ServingConfig poisson_queue(double rate_rps, int workers, std::uint64_t seed) {
  ServingConfig c;
  c.rate_rps = rate_rps;
  c.requests = 100000;
  c.seed = seed;
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

struct Replicated {
  double mean_wait_s = 0;  // pooled over the replications
  double relative_se = 0;  // standard error of that mean, relative to it
  double utilization = 0;
};

// K independent 100,000-request runs: arrivals and service draws seeded by the replication's number.
Replicated replicate(int k, double rate_rps, int workers, const std::function<BatchServiceTime(std::uint64_t)>& service) {
  double sum = 0, sum_sq = 0, util = 0;
  for (int i = 1; i <= k; ++i) {
    const auto seed = static_cast<std::uint64_t>(i);
    const ServingSummary s = summarize_serving(simulate_serving(poisson_queue(rate_rps, workers, seed), service(seed)));
    REQUIRE(s.served == 100000);
    sum += s.queue_mean_s;
    sum_sq += s.queue_mean_s * s.queue_mean_s;
    util += s.utilization / k;
  }
  const double mean = sum / k, var = (sum_sq - k * mean * mean) / (k - 1);
  return {mean, std::sqrt(var / k) / mean, util};
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
  const Replicated r = replicate(16, rate, 1, [&](std::uint64_t) -> BatchServiceTime { return [=](int) { return service; }; });
  const double expected = rho * service / (2 * (1 - rho));  // W_q = rho S / (2 (1 - rho)) for fixed S
  INFO("relative standard error " << r.relative_se);
  CHECK(r.relative_se < 0.007);
  CHECK(r.mean_wait_s == Approx(expected).epsilon(0.02));
  CHECK(r.utilization == Approx(rho).epsilon(0.01));
}

TEST_CASE("M/M/1: mean queue wait matches rho S / (1 - rho) within 2 %", "[serving][theory]") {
  const double service = 0.010, rho = 0.5, rate = rho / service;
  const Replicated r = replicate(16, rate, 1, [&](std::uint64_t seed) { return exponential_service(service, seed + 1000); });
  INFO("relative standard error " << r.relative_se);
  CHECK(r.relative_se < 0.007);
  CHECK(r.mean_wait_s == Approx(rho * service / (1 - rho)).epsilon(0.02));
  CHECK(r.utilization == Approx(rho).epsilon(0.01));
}

TEST_CASE("M/M/c: c workers on one queue match Erlang C within 2 %", "[serving][theory]") {
  const int c = 4;
  const double service = 0.010, rho = 0.7, rate = rho * c / service;
  const Replicated r = replicate(32, rate, c, [&](std::uint64_t seed) { return exponential_service(service, seed + 2000); });
  const double a = rate * service;
  const double expected = erlang_c(c, a) / (c / service - rate);  // W_q = C(c, a) / (c mu - lambda)
  INFO("relative standard error " << r.relative_se);
  CHECK(r.relative_se < 0.007);
  CHECK(r.mean_wait_s == Approx(expected).epsilon(0.02));
  CHECK(r.utilization == Approx(rho).epsilon(0.01));
}

TEST_CASE("Erlang C reduces to rho for one server", "[serving][theory]") {
  CHECK(erlang_c(1, 0.6) == Approx(0.6));
  CHECK(erlang_c(2, 1.0) == Approx(1.0 / 3.0));  // textbook: c = 2, a = 1 gives 1/3
}

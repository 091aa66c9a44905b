// Requests that carry their own batch (serving.request_batch), the offline run's batch, and the highest
// rate within a p99 bound (serving.max_rate_within, `hpcsim serve --max-rate-within`): docs/serving.md.
#include <catch2/catch.hpp>

#include <string>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/serving/max_rate_search.h"
#include "workloads/serving/serving_config.h"
#include "workloads/serving/serving_summary.h"

using namespace hpcsim;

namespace {

// A GPU-like batch: 4 ms fixed plus 0.25 ms per sample.
double gpu_batch(int samples) { return 0.004 + 0.00025 * samples; }

const std::string kScenario = std::string(HPCSIM_TEST_DATA_DIR) + "/serving/scenario.yaml";

std::string error_of(const std::string& yaml) {
  try {
    parse_serving(parse_config_text(yaml, kScenario).at("serving"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

ServingSummary run(const ServingConfig& c) { return summarize_serving(simulate_serving(c, gpu_batch)); }

}  // namespace

TEST_CASE("request batch: 32 samples per request at r match 32 r single requests only when batching allows it",
          "[serving][request_batch]") {
  const double r = 50;  // requests/s of 32 samples: 1,600 samples/s
  ServingConfig carried;
  carried.rate_rps = r;
  carried.requests = 20000;
  carried.request_batch = 32;
  carried.max_batch = 32;
  const ServingSummary a = run(carried);
  CHECK(a.mean_batch == Approx(32));  // one request per batch: 32 samples each
  CHECK(a.samples_per_s() == Approx(32 * r).epsilon(0.02));
  CHECK(a.throughput_rps == Approx(r).epsilon(0.02));
  // Each batch costs gpu_batch(32) = 12 ms: at 50 requests/s the one worker is 60 % busy.
  CHECK(a.utilization == Approx(r * gpu_batch(32)).epsilon(0.02));

  // The same samples as single requests with a batcher that gathers 32: the same sample rate is served.
  ServingConfig single;
  single.rate_rps = 32 * r;
  single.requests = 32 * 20000;
  single.max_batch = 32;
  single.max_queue_delay_s = 0.005;
  const ServingSummary b = run(single);
  CHECK(b.samples_per_s() == Approx(32 * r).epsilon(0.02));
  CHECK(b.dropped == 0);

  // Without batching (max_batch 1) single requests cap at 1 / gpu_batch(1) = 236 samples/s: far below 1,600.
  ServingConfig unbatched = single;
  unbatched.max_batch = 1;
  const ServingSummary c = run(unbatched);
  CHECK(c.samples_per_s() < 0.2 * 32 * r);
  CHECK(c.samples_per_s() == Approx(1 / gpu_batch(1)).epsilon(0.02));
}

TEST_CASE("request batch: a batch holds whole requests whose samples fit max_batch", "[serving][request_batch]") {
  ServingConfig c;  // offline: every request queued at time 0
  c.requests = 600;
  c.request_batch = 32;
  c.max_batch = 70;  // two requests of 32 fit, a third does not
  REQUIRE(c.requests_per_batch() == 2);
  REQUIRE(c.full_batch() == 64);
  const ServingResult result = simulate_serving(c, gpu_batch);
  for (const ServedRequest& q : result.requests) CHECK(q.batch == 64);
  CHECK(result.batches == 300);
  const ServingSummary s = summarize_serving(result);
  // Offline latency is the batch actually run, not batch 1 (nor max_batch).
  CHECK(s.latency_p50_s == Approx(gpu_batch(64)));
  CHECK(s.throughput_rps == Approx(2 / gpu_batch(64)));
  CHECK(s.samples_per_s() == Approx(64 / gpu_batch(64)));

  // The engine refuses a request larger than a batch; the section says so at the key.
  c.max_batch = 16;
  CHECK_THROWS_AS(simulate_serving(c, gpu_batch), std::invalid_argument);
  const std::string e = error_of("serving: {max_batch: 16,\n  request_batch: 32}\n");
  CHECK(e.find("scenario.yaml:2:18") != std::string::npos);
  CHECK(e.find("raise max_batch to at least 32") != std::string::npos);
  CHECK(error_of("serving: {max_batch: 8, request_batch: 0}\n").find("scenario.yaml:1:") != std::string::npos);
}

TEST_CASE("max rate within p99: the rate found keeps p99 within the bound and 5 % more does not",
          "[serving][max_rate]") {
  ServingConfig c;
  c.requests = 20000;
  c.max_batch = 8;
  c.workers = 2;
  c.replicas = 2;
  for (const double bound : {0.015, 0.030}) {
    INFO(bound);
    const MaxRateSearch found = max_rate_within_p99(c, gpu_batch, bound);
    REQUIRE(found.met);
    CHECK(found.summary.latency_p99_s <= bound);
    CHECK(found.summary.dropped == 0);
    ServingConfig at = c;
    at.rate_rps = found.rate_rps;
    CHECK(run(at).latency_p99_s <= bound);  // the reported run is the run at that rate
    at.rate_rps = 1.05 * found.rate_rps;
    CHECK(run(at).latency_p99_s > bound);
    // Below the saturated capacity (2 replicas x 2 workers x 8 / 6 ms = 5,333 requests/s), and deterministic.
    CHECK(found.rate_rps < 2 * 2 * 8 / gpu_batch(8));
    CHECK(max_rate_within_p99(c, gpu_batch, bound).rate_rps == found.rate_rps);
  }
  // A looser bound sustains a higher rate.
  CHECK(max_rate_within_p99(c, gpu_batch, 0.030).rate_rps > max_rate_within_p99(c, gpu_batch, 0.015).rate_rps);

  // Requests of 4 samples: the search counts requests, each batch whole requests.
  ServingConfig four = c;
  four.request_batch = 4;
  const MaxRateSearch f = max_rate_within_p99(four, gpu_batch, 0.030);
  REQUIRE(f.met);
  CHECK(f.summary.mean_batch <= 8);
  CHECK(f.rate_rps < max_rate_within_p99(c, gpu_batch, 0.030).rate_rps);
}

TEST_CASE("max rate within p99: a bound a lone request misses, and loads with no rate", "[serving][max_rate]") {
  ServingConfig c;
  c.max_batch = 8;
  c.max_queue_delay_s = 0.002;
  // A lone request waits out the 2 ms delay for a partial batch, then runs 4.25 ms: 6.25 ms.
  const MaxRateSearch tight = max_rate_within_p99(c, gpu_batch, 0.006);
  CHECK_FALSE(tight.met);
  CHECK(tight.reason.find("even a lone request") != std::string::npos);
  CHECK(max_rate_within_p99(c, gpu_batch, 0.007).met);
  ServingConfig closed;
  closed.concurrency = 4;
  CHECK_THROWS_AS(max_rate_within_p99(closed, gpu_batch, 0.01), std::invalid_argument);
  CHECK_THROWS_AS(max_rate_within_p99(c, gpu_batch, 0), std::invalid_argument);
}

TEST_CASE("max rate within p99: the serving key and its errors", "[serving][max_rate][config]") {
  const ServingConfig c = parse_serving(
      parse_config_text("serving: {max_batch: 4, max_rate_within: {p99: 15ms}}\n", kScenario).at("serving"));
  REQUIRE(c.max_rate_p99_s);
  CHECK(*c.max_rate_p99_s == Approx(0.015));
  CHECK(error_of("serving: {rate_rps: 100, max_rate_within: {p99: 15ms}}\n").find("not both") != std::string::npos);
  CHECK(error_of("serving: {concurrency: 4, max_rate_within: {p99: 15ms}}\n").find("closed loop") != std::string::npos);
  CHECK(error_of("serving: {max_rate_within: {p99: -1ms}}\n").find("scenario.yaml:1:") != std::string::npos);
  CHECK(error_of("serving: {max_rate_within: {p50: 1ms}}\n").find("scenario.yaml:1:") != std::string::npos);
  // Bursty arrivals take their mean rate from the search.
  CHECK(error_of("serving: {arrival: bursty, max_rate_within: {p99: 15ms}}\n") == "no error");
}

// Load sweeps and the replica search (docs/serving.md).
#include <catch2/catch.hpp>

#include "workloads/serving/load_sweep.h"
#include "workloads/serving/replica_search.h"

using namespace hpcsim;

namespace {

// A GPU-like batch: 4 ms fixed plus 1 ms per request.
double gpu_batch(int b) { return 0.004 + 0.001 * b; }

ServingConfig endpoint(double rate) {
  ServingConfig c;
  c.rate_rps = rate;
  c.requests = 20000;
  c.max_batch = 8;
  c.max_queue_delay_s = 0.002;
  c.load_balancer = LoadBalancer::least_outstanding;
  return c;
}

}  // namespace

TEST_CASE("load sweep: latency and throughput rise with the rate", "[serving][sweep]") {
  // Poisson times at rate r are the same draws over r, so waits grow with r run by run (Lindley's recursion).
  const auto points = sweep_load(endpoint(100), gpu_batch, {100, 300, 600});
  REQUIRE(points.size() == 3);
  CHECK(points[1].rate_rps == 300);
  for (int i = 0; i < 3; ++i) CHECK(points[i].summary.throughput_rps == Approx(points[i].rate_rps).epsilon(0.03));
  CHECK(points[0].summary.latency_p99_s < points[1].summary.latency_p99_s);
  CHECK(points[1].summary.latency_p99_s < points[2].summary.latency_p99_s);
  CHECK(points[0].summary.utilization < points[2].summary.utilization);
  ServingConfig closed;
  closed.concurrency = 2;
  CHECK_THROWS_AS(sweep_load(closed, gpu_batch, {1}), std::invalid_argument);
}

TEST_CASE("replica search: the fewest replicas meeting the p99 target", "[serving][replicas]") {
  // One replica saturates at 8 / 12 ms = 667 requests/s; 2000 requests/s need at least 4.
  const ServingConfig c = endpoint(2000);
  const double target = 0.025;
  const ReplicaSearch found = fewest_replicas_for_p99(c, gpu_batch, target);
  REQUIRE(found.met);
  CHECK(found.replicas >= 4);
  CHECK(found.summary.latency_p99_s <= target);
  CHECK(found.summary.replicas == found.replicas);
  // One fewer misses it.
  ServingConfig fewer = c;
  fewer.replicas = found.replicas - 1;
  CHECK(summarize_serving(simulate_serving(fewer, gpu_batch)).latency_p99_s > target);
}

TEST_CASE("replica search: a clear 'cannot meet' with the reason", "[serving][replicas]") {
  const ReplicaSearch slow = fewest_replicas_for_p99(endpoint(100), gpu_batch, 0.003);
  CHECK_FALSE(slow.met);
  CHECK_THAT(slow.reason, Catch::Contains("cannot meet") && Catch::Contains("lone request"));
  const ReplicaSearch busy = fewest_replicas_for_p99(endpoint(1e6), gpu_batch, 0.05, 16);
  CHECK_FALSE(busy.met);
  CHECK_THAT(busy.reason, Catch::Contains("16 replicas can serve"));
  ServingConfig offline = endpoint(1);
  offline.rate_rps.reset();
  CHECK_THAT(fewest_replicas_for_p99(offline, gpu_batch, 0.05).reason, Catch::Contains("no load"));
  // A target between batch-1 service and what queueing allows near the cap: the limit itself misses.
  const ReplicaSearch capped = fewest_replicas_for_p99(endpoint(2000), gpu_batch, 0.0052, 5);
  CHECK_FALSE(capped.met);
  CHECK_THAT(capped.reason, Catch::Contains("5 replicas give p99"));
}

TEST_CASE("bursty arrivals at the same mean rate queue longer than Poisson", "[serving][arrivals]") {
  ServingConfig c = endpoint(400);
  c.requests = 40000;
  const ServingSummary poisson = summarize_serving(simulate_serving(c, gpu_batch));
  c.arrival = ArrivalKind::bursty;
  c.burst = BurstShape{8, 0.2, 1.8};  // bursts at 8x the calm rate: above one replica's 667 requests/s
  const ServingSummary bursty = summarize_serving(simulate_serving(c, gpu_batch));
  CHECK(bursty.throughput_rps == Approx(400).epsilon(0.05));
  CHECK(bursty.latency_p99_s > 3 * poisson.latency_p99_s);
}

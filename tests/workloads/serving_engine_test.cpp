// Hand-checked small endpoints: dynamic batching, drops, load balancing, the closed loop, offline runs
// and determinism (docs/serving.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "workloads/serving/serving_engine.h"
#include "workloads/serving/service_table.h"
#include "workloads/serving/serving_summary.h"

using namespace hpcsim;

namespace {

// An endpoint fed by the given arrival times (a trace set in code).
ServingConfig traced(std::vector<double> times) {
  ServingConfig c;
  c.arrival = ArrivalKind::trace;
  for (const double t : times) c.trace.push_back({t, 0, 0});
  c.requests = static_cast<std::int64_t>(c.trace.size());
  return c;
}

}  // namespace

TEST_CASE("dynamic batching: a full batch starts at once, a partial one after max_queue_delay", "[serving]") {
  ServingConfig c = traced({0, 0.002, 0.004, 0.006, 0.007, 0.5});
  c.max_batch = 4;
  c.max_queue_delay_s = 0.010;
  auto service = [](int b) { return 0.1 + 0.01 * b; };
  const ServingResult r = simulate_serving(c, service);
  REQUIRE(r.requests.size() == 6);
  // The first four fill a batch at 0.006 (before the oldest's 10 ms run out) and run 0.14 s.
  for (int i = 0; i < 4; ++i) {
    CHECK(r.requests[i].batch == 4);
    CHECK(r.requests[i].start_s == Approx(0.006));
    CHECK(r.requests[i].end_s == Approx(0.146));
  }
  // The fifth waits for the worker; its delay ran out at 0.017, so it goes alone when the worker frees.
  CHECK(r.requests[4].batch == 1);
  CHECK(r.requests[4].start_s == Approx(0.146));
  CHECK(r.requests[4].end_s == Approx(0.256));
  // The sixth finds an idle worker but waits its max_queue_delay for company that never comes.
  CHECK(r.requests[5].start_s == Approx(0.510));
  CHECK(r.requests[5].latency_s() == Approx(0.010 + 0.11));
  CHECK(r.batches == 3);
}

TEST_CASE("dynamic batching without delay: a free worker takes what is queued, up to max_batch", "[serving]") {
  ServingConfig c = traced({0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06});
  c.max_batch = 3;
  const ServingResult r = simulate_serving(c, [](int) { return 0.1; });
  // 0 runs alone (0-0.1); 0.01..0.06 queue up; at 0.1 a batch of three, at 0.2 the other three.
  CHECK(r.requests[0].batch == 1);
  for (int i = 1; i <= 3; ++i) CHECK(r.requests[i].start_s == Approx(0.1));
  for (int i = 4; i <= 6; ++i) CHECK(r.requests[i].start_s == Approx(0.2));
  CHECK(r.requests[6].end_s == Approx(0.3));
}

TEST_CASE("queue_limit drops requests arriving to a full queue", "[serving]") {
  ServingConfig c = traced({0, 0.1, 0.2, 0.3, 0.4});
  c.queue_limit = 2;
  const ServingResult r = simulate_serving(c, [](int) { return 1.0; });
  // 0 starts at once; 0.1 and 0.2 queue; 0.3 and 0.4 find two queued and are dropped.
  CHECK(r.requests[3].outcome == RequestOutcome::dropped_queue_limit);
  CHECK(r.requests[4].outcome == RequestOutcome::dropped_queue_limit);
  CHECK(r.requests[4].end_s == Approx(0.4));
  CHECK(r.requests[2].end_s == Approx(3.0));
  const ServingSummary s = summarize_serving(r);
  CHECK(s.dropped == 2);
  CHECK(s.dropped_queue_limit == 2);
  CHECK(s.served == 3);
  CHECK(s.latency_p99_s == Approx(2.8));  // the last served: arrived 0.2, ended 3.0
}

TEST_CASE("timeout drops a request still queued that long after it arrived", "[serving]") {
  ServingConfig c = traced({0, 0.1, 0.2, 0.3, 0.4});
  c.timeout_s = 1.5;
  const ServingResult r = simulate_serving(c, [](int) { return 1.0; });
  // 0.1 starts at 1.0 (waited 0.9); 0.2, 0.3, 0.4 would start at 2.0, after their 1.5 s: dropped at 1.7, 1.8, 1.9.
  CHECK(r.requests[1].outcome == RequestOutcome::served);
  CHECK(r.requests[1].start_s == Approx(1.0));
  for (int i = 2; i <= 4; ++i) {
    CHECK(r.requests[i].outcome == RequestOutcome::dropped_timeout);
    CHECK(r.requests[i].end_s == Approx(r.requests[i].arrival_s + 1.5));
  }
  CHECK(summarize_serving(r).dropped_timeout == 3);
}

TEST_CASE("least outstanding avoids a replica busy with a long batch: round robin does not", "[serving]") {
  // The first batch runs 3 s, every other 1 s. A at 0 and B at 0.1 go to replicas 0 and 1; when C arrives at
  // 1.2, replica 1 is idle and replica 0 still busy.
  ServingConfig c = traced({0, 0.1, 1.2});
  c.replicas = 2;
  auto service = [calls = 0](int) mutable { return calls++ == 0 ? 3.0 : 1.0; };
  c.load_balancer = LoadBalancer::round_robin;
  const ServingResult rr = simulate_serving(c, service);
  CHECK(rr.requests[2].replica == 0);
  CHECK(rr.requests[2].latency_s() == Approx(2.8));  // waits for replica 0 until 3.0
  c.load_balancer = LoadBalancer::least_outstanding;
  const ServingResult lo = simulate_serving(c, service);
  CHECK(lo.requests[2].replica == 1);
  CHECK(lo.requests[2].latency_s() == Approx(1.0));
}

TEST_CASE("least outstanding shares idle replicas in turn", "[serving]") {
  ServingConfig c = traced({0, 10, 20, 30});
  c.replicas = 2;
  c.load_balancer = LoadBalancer::least_outstanding;
  const ServingResult r = simulate_serving(c, [](int) { return 1.0; });
  CHECK(r.requests[0].replica == 0);
  CHECK(r.requests[1].replica == 1);
  CHECK(r.requests[2].replica == 0);
  CHECK(r.requests[3].replica == 1);
}

TEST_CASE("closed loop: N clients keep N requests outstanding (Little's law)", "[serving]") {
  ServingConfig c;
  c.concurrency = 2;
  c.requests = 10;
  const ServingResult r = simulate_serving(c, [](int) { return 0.5; });
  REQUIRE(r.requests.size() == 10);
  // One in service, one waiting: every request after the first takes 1 s, and one ends every 0.5 s.
  CHECK(r.requests[0].latency_s() == Approx(0.5));
  for (std::size_t i = 1; i < r.requests.size(); ++i) CHECK(r.requests[i].latency_s() == Approx(1.0));
  const ServingSummary s = summarize_serving(r);
  CHECK(s.throughput_rps == Approx(2.0));
  CHECK(s.utilization == Approx(1.0));

  // Four clients and batches of four: every round is one batch of 0.5 s.
  c.concurrency = 4;
  c.requests = 40;
  c.max_batch = 4;
  const ServingSummary batched = summarize_serving(simulate_serving(c, [](int b) { return 0.1 + 0.1 * b; }));
  CHECK(batched.mean_batch == Approx(4.0));
  CHECK(batched.throughput_rps == Approx(8.0));
  CHECK(batched.latency_p99_s == Approx(0.5));
}

TEST_CASE("closed loop: a client whose request is dropped sends its next one", "[serving]") {
  ServingConfig c;
  c.concurrency = 3;
  c.requests = 9;
  c.timeout_s = 0.6;
  const ServingResult r = simulate_serving(c, [](int) { return 0.5; });
  const ServingSummary s = summarize_serving(r);
  CHECK(s.requests == 9);
  CHECK(s.served + s.dropped == 9);
  CHECK(s.dropped_timeout > 0);  // the third client always waits 1 s behind two others: past its 0.6 s
}

TEST_CASE("offline: every request at time 0 gives the saturated throughput and the latency of the batch it runs",
          "[serving]") {
  ServingConfig c;
  c.replicas = 2;
  c.max_batch = 8;
  c.requests = 1600;
  c.queue_limit = 10;  // not applied offline
  REQUIRE(c.offline());
  auto service = [](int b) { return 0.010 + 0.002 * b; };
  const ServingSummary s = summarize_serving(simulate_serving(c, service));
  CHECK(s.offline);
  CHECK(s.dropped == 0);
  CHECK(s.throughput_rps == Approx(2 * 8 / service(8)));  // 100 full batches per replica back to back
  CHECK(s.latency_p99_s == Approx(service(8)));  // a full batch, the one every offline batch is
  CHECK(s.mean_batch == Approx(8));
  CHECK(s.utilization == Approx(1.0));
}

TEST_CASE("same seed, same bytes: another seed, other arrivals", "[serving]") {
  ServingConfig c;
  c.rate_rps = 3000;  // about the endpoint's capacity: queues fill and requests are dropped
  c.requests = 20000;
  c.replicas = 3;
  c.workers = 2;
  c.max_batch = 4;
  c.max_queue_delay_s = 0.002;
  c.load_balancer = LoadBalancer::least_outstanding;
  c.timeout_s = 0.05;
  c.queue_limit = 20;
  auto service = [](int b) { return 0.004 + 0.001 * b; };
  const ServingResult a = simulate_serving(c, service), b = simulate_serving(c, service);
  REQUIRE(a.requests.size() == b.requests.size());
  bool same = true;
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    const ServedRequest &x = a.requests[i], &y = b.requests[i];
    same = same && std::memcmp(&x.arrival_s, &y.arrival_s, sizeof(double)) == 0 &&
           std::memcmp(&x.start_s, &y.start_s, sizeof(double)) == 0 && std::memcmp(&x.end_s, &y.end_s, sizeof(double)) == 0 &&
           x.replica == y.replica && x.batch == y.batch && x.outcome == y.outcome;
  }
  CHECK(same);
  CHECK(summarize_serving(a).dropped > 0);  // the run exercises the drops it compares
  c.seed = 2;
  const ServingResult other = simulate_serving(c, service);
  CHECK(other.requests[10].arrival_s != a.requests[10].arrival_s);
}

TEST_CASE("a negative or infinite service time is refused", "[serving]") {
  ServingConfig c = traced({0});
  CHECK_THROWS_AS(simulate_serving(c, [](int) { return -1.0; }), std::invalid_argument);
  CHECK_THROWS_AS(simulate_serving(c, [](int) { return INFINITY; }), std::invalid_argument);
}

TEST_CASE("closed loop over replicas: least outstanding spreads the clients evenly", "[serving]") {
  ServingConfig c;
  c.concurrency = 6;
  c.requests = 600;
  c.replicas = 3;
  c.load_balancer = LoadBalancer::least_outstanding;
  const ServingResult r = simulate_serving(c, [](int) { return 0.1; });
  std::vector<int> per_replica(3, 0);
  for (const ServedRequest& q : r.requests) ++per_replica[q.replica];
  CHECK(per_replica == std::vector<int>{200, 200, 200});
  // Two clients per replica, one in service and one waiting: 10 requests/s per replica, each taking 0.2 s.
  const ServingSummary s = summarize_serving(r);
  CHECK(s.throughput_rps == Approx(30.0));
  CHECK(s.latency_p50_s == Approx(0.2));
}

TEST_CASE("a tabulated service calls the model once per batch size and changes nothing", "[serving]") {
  ServingConfig c;
  c.rate_rps = 500;
  c.requests = 5000;
  c.max_batch = 8;
  c.max_queue_delay_s = 0.001;
  int calls = 0;
  const BatchServiceTime model = [&calls](int b) {
    ++calls;
    return 0.004 + 0.001 * b;
  };
  const ServingResult direct = simulate_serving(c, model);
  const int direct_calls = calls;
  calls = 0;
  const ServingResult tabulated = simulate_serving(c, tabulate_service(model, c.max_batch));
  CHECK(calls == 8);
  CHECK(direct_calls == direct.batches);
  CHECK(direct.batches > 100);
  CHECK(tabulated.requests.back().end_s == direct.requests.back().end_s);
  CHECK(tabulated.busy_worker_s == direct.busy_worker_s);
  CHECK_THROWS_AS(tabulate_service(model, 8)(9), std::invalid_argument);
  CHECK_THROWS_AS(tabulate_service([](int) { return NAN; }, 2), std::invalid_argument);
}

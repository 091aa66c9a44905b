// The serving engine at scale (issue 16's acceptance: a 1,000,000-request ResNet-50 endpoint in under 5 s).
// Four GPU replicas behind a least-outstanding balancer, dynamic batching up to 32 with a 2 ms queue delay,
// Poisson arrivals at 50,000 requests/s (about 73 % of the endpoint's saturated capacity), a queue limit
// and a timeout so every path of the engine runs.
//
// The batch time is shaped like a GPU's, t(b) = a + c b: a = 1 ms of fixed cost per batch (launches,
// framework and copy latency: a lone ResNet-50 request on a datacenter GPU under Triton takes about a
// millisecond), c = 27 us per image (MLPerf Inference's A100 ResNet-50 offline results are about 37,000
// images/s per GPU, 1 / 37,000 s = 27 us). These are illustrative magnitudes for timing the engine, not a
// prediction: the infer part of issue 16 gives the modelled batch time.
//
// Prints the wall and CPU time of generating and simulating, requests simulated per second, and a digest of every
// request's outcome and end time (FNV-1a over their bits): a faster engine must print the same digest.
//
// Usage: serving_bench [--requests N] [--rate R] [--replicas K] [--repeat M]   (median of M runs; default 3)
//                      [--front-end-threads T --front-end-us U]   (each replica's front end: T threads, U us a request)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "workloads/serving/serving_engine.h"
#include "workloads/serving/serving_summary.h"

namespace {

using namespace hpcsim;
using Clock = std::chrono::steady_clock;

// This process's CPU time (user + system): on a shared machine it moves less than the wall time.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::uint64_t digest(const ServingResult& r) {
  std::uint64_t h = 1469598103934665603ULL;
  auto add = [&](const void* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ULL;
  };
  for (const ServedRequest& q : r.requests) {
    add(&q.end_s, sizeof q.end_s);
    add(&q.outcome, sizeof q.outcome);
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  ServingConfig c;
  c.requests = 1000000;
  c.rate_rps = 50000;
  c.replicas = 4;
  c.max_batch = 32;
  c.max_queue_delay_s = 0.002;
  c.load_balancer = LoadBalancer::least_outstanding;
  c.queue_limit = 4096;
  c.timeout_s = 1.0;
  int repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const double v = std::atof(argv[i + 1]);
    if (flag == "--requests") c.requests = static_cast<std::int64_t>(v);
    else if (flag == "--rate") c.rate_rps = v;
    else if (flag == "--replicas") c.replicas = static_cast<int>(v);
    else if (flag == "--repeat") repeat = std::max(1, static_cast<int>(v));
    else if (flag == "--front-end-threads") c.front_end.threads = static_cast<int>(v);
    else if (flag == "--front-end-us") c.front_end.per_request_s = v * 1e-6;
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  const BatchServiceTime resnet50_gpu = [](int b) { return 1.0e-3 + 27e-6 * b; };
  std::vector<double> walls, cpus;
  ServingResult result;
  for (int k = 0; k < repeat; ++k) {
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds();
    result = simulate_serving(c, resnet50_gpu);
    walls.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    cpus.push_back(cpu_seconds() - cpu_start);
  }
  std::sort(walls.begin(), walls.end());
  std::sort(cpus.begin(), cpus.end());
  const double wall = walls[walls.size() / 2], cpu = cpus[cpus.size() / 2];
  const ServingSummary s = summarize_serving(result);
  std::printf("serving_bench: %lld requests, %d replicas, rate %.0f/s, max_batch %d, front end %d x %.0f us\n",
              static_cast<long long>(c.requests), c.replicas, *c.rate_rps, c.max_batch, c.front_end.threads,
              c.front_end.per_request_s * 1e6);
  std::printf("  wall %.3f s, cpu %.3f s (medians of %d), %.3g requests simulated per second of wall time\n", wall,
              cpu, repeat, static_cast<double>(c.requests) / wall);
  std::printf("  p50 %.3f ms, p99 %.3f ms, throughput %.0f/s, utilization %.3f, mean batch %.2f, dropped %lld\n",
              s.latency_p50_s * 1e3, s.latency_p99_s * 1e3, s.throughput_rps, s.utilization, s.mean_batch,
              static_cast<long long>(s.dropped));
  std::printf("  digest %016llx\n", static_cast<unsigned long long>(digest(result)));
  return 0;
}

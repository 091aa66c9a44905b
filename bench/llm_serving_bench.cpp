// LLM serving at scale: 10,000 Llama 3 8B requests (fp8, one H100 of a DGX H100) with Poisson arrivals
// and mixed lengths through the continuous-batching engine (workloads/serving/llm/), timed by the wall
// clock. It prints the requests and engine iterations simulated per second; building the replica's cost
// model (the zoo model, the cluster) is timed apart. A digest (FNV-1a over every request's first-token
// and end times) tells equal runs apart from different ones: a faster engine must print the same digest.
//
// Usage: llm_serving_bench [--requests N] [--rate RPS] [--seed S] [--model NAME] [--tp T] [--repeat K]
//   Lengths: input uniform in [128, 4096], output uniform in [32, 1024] tokens (seeded); default rate 10/s (below the
//   replica's capacity of about 11.7/s at these lengths, so queues stay bounded).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "report/llm_serving_report.h"
#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/serving/llm/llm_serving.h"
#include "workloads/serving/request_arrival.h"
#include "workloads/zoo/zoo.h"

namespace {

using namespace hpcsim;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The queue part's seeded Poisson arrivals, each with lengths drawn here.
std::vector<LlmRequest> mixed_load(std::int64_t n, double rate, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> in(128, 4096), out(32, 1024);
  std::vector<LlmRequest> r;
  for (const RequestArrival& a : poisson_arrivals(rate, n, seed)) {
    const std::int64_t input = in(rng);
    r.push_back({a.time_s, input, out(rng)});
  }
  return r;
}

std::uint64_t digest(const LlmServingResult& r) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) h = (h ^ ((bits >> (8 * i)) & 0xff)) * 1099511628211ULL;
  };
  for (const LlmRequestOutcome& o : r.requests) mix(o.first_token_s), mix(o.end_s);
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t requests = 10000;
  double rate = 10;
  unsigned seed = 1;
  std::string model_name = "llama3-8b";
  int tp = 1, repeat = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--requests") requests = std::atoll(value.c_str());
    else if (flag == "--rate") rate = std::atof(value.c_str());
    else if (flag == "--seed") seed = static_cast<unsigned>(std::atoi(value.c_str()));
    else if (flag == "--model") model_name = value;
    else if (flag == "--tp") tp = std::atoi(value.c_str());
    else if (flag == "--repeat") repeat = std::atoi(value.c_str());
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  const SpecCatalog catalog(SpecCatalog::resolve_root(HPCSIM_SOURCE_CONFIG_DIR));
  const std::vector<LlmRequest> load = mixed_load(requests, rate, seed);
  for (int k = 0; k < repeat; ++k) {
    const Clock::time_point build_start = Clock::now();
    const ClusterConfig cluster =
        parse_cluster(parse_config_text("cluster: {node: dgx-h100, nodes: 1}", "bench.yaml").at("cluster"), catalog);
    LlmReplicaCost cost(build_model(model_name, {}, catalog.root()), cluster, tp, Precision::fp8, Precision::fp8);
    const double build_s = seconds_since(build_start);
    const Clock::time_point start = Clock::now();
    const LlmServingResult r = simulate_llm_serving(cost, {}, load);
    const double wall = seconds_since(start);
    std::printf("%s tp%d fp8 on dgx-h100: %lld requests at %.1f/s, %lld iterations, %lld preemptions, mean batch %.1f\n",
                model_name.c_str(), tp, static_cast<long long>(r.requests.size()), rate,
                static_cast<long long>(r.iterations), static_cast<long long>(r.preemptions), r.mean_batch);
    std::printf("  build %.3f s, simulate %.3f s: %.0f requests/s, %.0f iterations/s simulated; digest %016llx\n", build_s,
                wall, static_cast<double>(r.requests.size()) / wall, static_cast<double>(r.iterations) / wall,
                static_cast<unsigned long long>(digest(r)));
    for (const Metric& m : llm_serving_metrics(r)) {
      if (m.value) std::printf("  %-24s %.6g %s\n", m.name.c_str(), *m.value, m.unit.c_str());
    }
  }
  return 0;
}

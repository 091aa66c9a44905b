// Serve scenarios with request batches, the offline run's batch shared by `hpcsim serve` and
// `hpcsim validate`, and the rate search's report (issue 37; docs/serving.md).
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "driver/serve_run.h"
#include "workloads/inference/offline_prediction.h"
#include "workloads/serving/serve_scenario.h"

using namespace hpcsim;

namespace {

const std::string kFile = std::string(HPCSIM_TEST_DATA_DIR) + "/serving/scenario.yaml";

ServeScenario scenario(const std::string& serving, const std::string& workload =
                                                       "{model: vit-b16, precision: fp16, framework: pytorch}") {
  const std::string yaml = "kind: serve\ncluster: {node: g5-2xlarge}\nworkload: " + workload + "\nserving: " + serving + "\n";
  return parse_serve_scenario(parse_config_text(yaml, kFile), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "t");
}

double metric(const Report& r, const std::string& name) {
  for (const Metric& m : r.metrics) {
    if (m.name == name) {
      REQUIRE(m.value.has_value());
      return *m.value;
    }
  }
  FAIL("no metric " << name);
  return 0;
}

std::string error_of(const std::string& serving, const std::string& workload) {
  try {
    scenario(serving, workload);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("serve: the offline run's latency and throughput are the batch validate predicts at", "[serve][offline]") {
  // max_batch 40 with requests of 16 samples: two requests, 32 samples, every batch of the offline run.
  const ServeScenario s = scenario("{requests: 400, max_batch: 40, request_batch: 16}");
  const Report r = serve_once(s).report;
  const OfflineResult predicted = offline_throughput(s.setup, 32, 2, 1);
  CHECK(metric(r, "latency_s.p50") == Approx(predicted.batch_latency_s));
  CHECK(metric(r, "mean_batch") == 32);
  // The run's 200 batches back to back give the closed form's rate.
  CHECK(metric(r, "throughput_rps") == Approx(predicted.throughput_rps).epsilon(1e-6));
  CHECK(metric(r, "throughput_samples_per_s") == Approx(16 * predicted.throughput_rps).epsilon(1e-6));
  // Not the batch-1 latency: a batch of 32 images costs more than one.
  CHECK(metric(r, "latency_s.p50") > offline_throughput(s.setup, 1, 1, 1).batch_latency_s * 2);
}

TEST_CASE("serve: an offline run without a request count runs whole rounds, at validate's saturated rate",
          "[serve][offline]") {
  // 3 replicas x 5 workers x 2 requests a batch: 30 requests a round; the default 10,000 rounds up to 334 rounds.
  const ServeScenario s = scenario("{replicas: 3, workers: 5, max_batch: 32, request_batch: 16}");
  CHECK(s.serving.requests == 334 * 30);
  const Report r = serve_once(s).report;
  const OfflineResult predicted = offline_throughput(s.setup, 32, 2, 3);
  CHECK(metric(r, "throughput_rps") == Approx(predicted.throughput_rps).epsilon(1e-6));
  // A request count that leaves the last round partial is the user's: 31 requests wait for a second round.
  const ServeScenario given = scenario("{replicas: 3, workers: 5, max_batch: 32, request_batch: 16, requests: 31}");
  CHECK(given.serving.requests == 31);
  CHECK(metric(serve_once(given).report, "throughput_rps") < 0.8 * metric(r, "throughput_rps"));
}

TEST_CASE("serve: a request of N samples through a front end sends N samples' bytes", "[serve][request_batch]") {
  const ServeScenario one = scenario("{max_batch: 8, front_end: triton-http}");
  const ServeScenario four = scenario("{max_batch: 8, request_batch: 4, front_end: triton-http}");
  const ServeScenario two = scenario("{max_batch: 8, request_batch: 2, front_end: triton-http}");
  // per request = fixed + bytes / bandwidth: the bytes part is linear in the samples.
  const double fixed = 2 * one.serving.front_end.per_request_s - two.serving.front_end.per_request_s;
  CHECK(four.serving.front_end.per_request_s - fixed == Approx(4 * (one.serving.front_end.per_request_s - fixed)));
  CHECK(four.serving.front_end.per_request_s > one.serving.front_end.per_request_s);
}

TEST_CASE("serve: the rate search's report, and keys an LLM endpoint refuses", "[serve][max_rate]") {
  const ServeScenario s = scenario("{requests: 4000, max_batch: 8, max_rate_within: {p99: 80ms}}");
  const ServeRun run = serve_once(s);
  CHECK(run.cannot_meet.empty());
  CHECK(metric(run.report, "max_rate.met") == 1);
  CHECK(metric(run.report, "max_rate.bound_p99_s") == Approx(0.080));
  CHECK(metric(run.report, "max_rate.p99_s") <= 0.080);
  CHECK(metric(run.report, "max_rate.p99_s") == metric(run.report, "latency_s.p99"));
  CHECK(metric(run.report, "throughput_rps") == Approx(metric(run.report, "max_rate.rate_rps")).epsilon(0.05));
  // A bound below a lone request's batch: exit 1 with the reason.
  const ServeRun tight = serve_max_rate(s, 1e-4);
  CHECK(metric(tight.report, "max_rate.met") == 0);
  CHECK(tight.cannot_meet.find("even a lone request") != std::string::npos);

  const std::string llm = "{model: llama3-8b, precision: fp16, input_len: 128, output_len: 16}";
  CHECK(error_of("{max_batch: 4,\n  request_batch: 2}", llm).find("scenario.yaml:5:18") != std::string::npos);
  CHECK(error_of("{max_rate_within: {p99: 1s}}", llm).find("LLM endpoint") != std::string::npos);
}

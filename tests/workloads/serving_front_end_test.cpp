// A serving front end (serving.front_end, configs/frontends): its threads ahead of the batcher, the request
// bytes it receives, the GPU's input copy, and its errors (docs/inference.md "Serving front end").
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/serving/front_end_spec.h"
#include "workloads/serving/serve_scenario.h"
#include "workloads/serving/serving_engine.h"
#include "workloads/serving/serving_summary.h"

using namespace hpcsim;

namespace {

ServeScenario serve_of(const std::string& text) {
  return parse_serve_scenario(parse_config_text(text, "serve.yaml"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR), "serve");
}

std::string error_of(const std::string& text) {
  try {
    serve_of(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kResnet = "kind: serve\ncluster: {node: dgx-a100-80gb}\nworkload: {model: resnet50, precision: fp16}\n";

}  // namespace

TEST_CASE("front end: requests beyond its threads wait for one, and its time is latency, not queue", "[serving]") {
  ServingConfig c;
  c.concurrency = 16;
  c.requests = 4000;
  c.front_end = FrontEnd{4, 1e-3};
  // A model that takes no time: the four threads alone bound the endpoint, at 4 per millisecond.
  const ServingSummary s = summarize_serving(simulate_serving(c, [](int) { return 0.0; }));
  CHECK(s.throughput_rps == Approx(4000).epsilon(1e-3));
  CHECK(s.latency_mean_s == Approx(16 / 4000.0).epsilon(5e-3));  // Little's law over the 16 clients (less the start)
  CHECK(s.queue_p99_s == Approx(0).margin(1e-12));                 // nothing waits at the batcher
  REQUIRE(s.front_end_utilization.has_value());
  CHECK(*s.front_end_utilization == Approx(1).epsilon(1e-3));       // its threads never idle

  // A lone request: its front-end time, then its batch.
  ServingConfig one;
  one.arrival = ArrivalKind::trace;
  one.trace = {{0.5, 0, 0}};
  one.requests = 1;
  one.front_end = FrontEnd{8, 2e-3};
  const ServingResult r = simulate_serving(one, [](int) { return 0.010; });
  CHECK(r.requests[0].ready_s == Approx(0.502));
  CHECK(r.requests[0].latency_s() == Approx(0.012));
  CHECK(r.requests[0].queue_s() == Approx(0).margin(1e-12));
  // Without a front end a request is ready as it arrives, and the summary has no front-end figure.
  one.front_end = FrontEnd{};
  const ServingResult bare = simulate_serving(one, [](int) { return 0.010; });
  CHECK(bare.requests[0].ready_s == 0.5);
  CHECK_FALSE(summarize_serving(bare).front_end_utilization.has_value());
}

TEST_CASE("front end: offline runs report it in the full batch's latency, and each replica has its own", "[serving]") {
  ServingConfig offline;
  offline.requests = 100;
  offline.front_end = FrontEnd{2, 0.003};
  const ServingSummary s = summarize_serving(simulate_serving(offline, [](int) { return 0.001; }));
  CHECK(s.offline);
  CHECK(s.latency_p50_s == Approx(0.004));           // a lone request: its front end, then its batch
  CHECK(s.throughput_rps == Approx(2 / 0.003).epsilon(0.02));  // the two threads bound the saturated run

  // Two requests at once on two replicas of one front-end thread each: neither waits for the other's thread.
  ServingConfig pair;
  pair.arrival = ArrivalKind::trace;
  pair.trace = {{0, 0, 0}, {0, 0, 0}};
  pair.requests = 2;
  pair.replicas = 2;
  pair.load_balancer = LoadBalancer::least_outstanding;
  pair.front_end = FrontEnd{1, 0.002};
  const ServingResult r = simulate_serving(pair, [](int) { return 0.001; });
  CHECK(r.requests[0].replica != r.requests[1].replica);
  CHECK(r.requests[1].latency_s() == Approx(0.003));
}

TEST_CASE("front end: a request's bytes at the spec's bandwidth, and GPU replicas copy the batch's inputs",
          "[serving][inference]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const FrontEndSpec triton = load_front_end_spec(catalog, ConfigNode::make_scalar("triton-http", {}));
  CHECK(triton.threads == 8);
  const ServeScenario s = serve_of(kResnet + "serving: {front_end: triton-http, concurrency: 8}\n");
  const double image = 3 * 224 * 224 * 4;  // one fp32 3x224x224 input
  CHECK(s.setup.host_input_bytes == image);
  CHECK(s.serving.front_end.threads == 8);
  CHECK(s.serving.front_end.per_request_s == Approx(triton.per_request_s + image / triton.receive_bandwidth));
  const ServeScenario half = serve_of(kResnet + "serving: {front_end: triton-http, input_dtype: fp16, concurrency: 8}\n");
  CHECK(half.serving.front_end.per_request_s ==
        Approx(triton.per_request_s + image / 2 / triton.receive_bandwidth));
  CHECK(half.setup.host_input_bytes == image / 2);
  CHECK(s.setup.host_input_bandwidth == triton.compute_input_bandwidth);
  CHECK(triton.compute_input_bandwidth > 1e9);
  CHECK(triton.compute_input_bandwidth < 20e9);
  // The copy lengthens each batch: the same endpoint without a front end runs its batches faster.
  const ServeScenario local = serve_of(kResnet + "serving: {concurrency: 8}\n");
  CHECK(local.setup.host_input_bytes == 0);
  CHECK(replica_service_time(s)(1) > replica_service_time(local)(1));
}

TEST_CASE("front end: after a batch its worker gives each request its response, one after another",
          "[serving][inference]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const FrontEndSpec triton = load_front_end_spec(catalog, ConfigNode::make_scalar("triton-http", {}));
  CHECK(triton.compute_output_per_request_s > 0);
  CHECK(triton.compute_output_per_request_s < 100e-6);  // tens of microseconds in every published breakdown
  const ServeScenario s = serve_of(kResnet + "serving: {front_end: triton-http, concurrency: 8, max_batch: 32}\n");
  CHECK(s.setup.host_output_s_per_request == triton.compute_output_per_request_s);
  // The same endpoint without the output stage: each batch is shorter by its requests' output stages.
  ServeScenario bare = s;
  bare.setup.host_output_s_per_request = 0;
  for (const int batch : {1, 8, 32}) {
    INFO("batch " << batch);
    CHECK(replica_service_time(s)(batch) - replica_service_time(bare)(batch) ==
          Approx(batch * triton.compute_output_per_request_s).epsilon(1e-9));
  }
  ConfigNode spec = SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("frontends", ConfigNode::make_scalar("triton-http", {}), "front end");
  spec.erase("compute_output_per_request");
  CHECK_THROWS_WITH(parse_front_end_spec(spec, "x"), Catch::Contains("missing required key 'compute_output_per_request'"));
}

TEST_CASE("front end: bad input is an error at its key", "[serving][config]") {
  CHECK_THAT(error_of(kResnet + "serving: {front_end: triton-grpc}\n"),
             Catch::StartsWith("serve.yaml:4:22:") && Catch::Contains("triton-http"));
  CHECK_THAT(error_of(kResnet + "serving: {input_dtype: fp16}\n"),
             Catch::StartsWith("serve.yaml:4:24:") && Catch::Contains("front_end"));
  CHECK_THAT(error_of(kResnet + "serving: {front_end: triton-http, input_dtype: fp64}\n"),
             Catch::StartsWith("serve.yaml:4:"));
  CHECK_THAT(error_of("kind: serve\ncluster: {node: dgx-h100}\nworkload: {model: llama3-8b, precision: fp8, "
                      "input_len: 128, output_len: 128}\nserving: {front_end: triton-http}\n"),
             Catch::StartsWith("serve.yaml:4:22:") && Catch::Contains("LLM"));
}

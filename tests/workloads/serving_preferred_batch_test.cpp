// Triton's preferred batch sizes (serving.preferred_batch_sizes): the dynamic batcher takes the largest
// preferred batch the queue reaches at once, never more than the largest preferred size, and waits out
// max_queue_delay short of every preferred size (docs/serving.md; Triton's GetDynamicBatch).
#include <catch2/catch.hpp>

#include <string>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/serving/serving_config.h"
#include "workloads/serving/serving_engine.h"

using namespace hpcsim;

namespace {

ServingConfig traced(std::vector<double> times) {
  ServingConfig c;
  c.arrival = ArrivalKind::trace;
  for (const double t : times) c.trace.push_back({t, 0, 0});
  c.requests = static_cast<std::int64_t>(c.trace.size());
  return c;
}

const std::string kScenario = std::string(HPCSIM_TEST_DATA_DIR) + "/serving/scenario.yaml";

ServingConfig parse(const std::string& yaml) { return parse_serving(parse_config_text(yaml, kScenario).at("serving")); }

std::string error_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("preferred batch sizes: a preferred batch goes at once, the rest waits out the delay", "[serving]") {
  auto service = [](int b) { return 0.1 + 0.01 * b; };
  ServingConfig c = traced({0, 0, 0});
  c.max_batch = 4;
  c.max_queue_delay_s = 0.010;
  SECTION("without preferred sizes the three wait for the delay and go together") {
    const ServingResult r = simulate_serving(c, service);
    for (const ServedRequest& q : r.requests) {
      CHECK(q.batch == 3);
      CHECK(q.start_s == Approx(0.010));
    }
  }
  SECTION("with 2 preferred, two go at once and the third after that batch") {
    c.preferred_batch_sizes = {2, 4};
    const ServingResult r = simulate_serving(c, service);
    CHECK(r.requests[0].batch == 2);
    CHECK(r.requests[0].start_s == Approx(0.0));
    CHECK(r.requests[1].start_s == Approx(0.0));
    // Its delay ran out at 0.010 while the worker was busy: it goes alone when the worker frees at 0.12.
    CHECK(r.requests[2].batch == 1);
    CHECK(r.requests[2].start_s == Approx(0.12));
  }
}

TEST_CASE("preferred batch sizes: the largest caps a batch below max_batch", "[serving]") {
  ServingConfig c = traced({0, 0, 0, 0, 0});
  c.max_batch = 8;
  c.preferred_batch_sizes = {2};
  const ServingResult r = simulate_serving(c, [](int b) { return 0.1 * b; });
  CHECK(r.requests[0].batch == 2);
  CHECK(r.requests[2].batch == 2);
  CHECK(r.requests[2].start_s == Approx(0.2));
  CHECK(r.requests[4].batch == 1);
  CHECK(r.requests[4].start_s == Approx(0.4));
  CHECK(c.full_batch() == 2);  // an offline run's batch, and the batch an engine is tuned for
}

TEST_CASE("preferred batch sizes: counted in samples when a request carries a batch", "[serving]") {
  ServingConfig c = traced({0, 0, 0});
  c.max_batch = 8;
  c.request_batch = 2;
  c.max_queue_delay_s = 1;
  c.preferred_batch_sizes = {4, 8};
  const ServingResult r = simulate_serving(c, [](int b) { return 0.1 * b; });
  CHECK(r.requests[0].batch == 4);  // two requests of two samples: the preferred 4 at once
  CHECK(r.requests[0].start_s == Approx(0.0));
  CHECK(r.requests[2].start_s == Approx(1.0));  // alone, after its delay (the worker freed at 0.4)
}

TEST_CASE("preferred batch sizes: read sorted, and larger than max_batch is an error at the item", "[serving][config]") {
  const ServingConfig c = parse("serving: {max_batch: 128, preferred_batch_sizes: [128, 64, 64]}\n");
  CHECK(c.preferred_batch_sizes == std::vector<int>{64, 128});
  CHECK(c.full_batch() == 128);
  CHECK(parse("serving: {max_batch: 16}\n").preferred_batch_sizes.empty());
  CHECK(error_of("serving: {max_batch: 8, preferred_batch_sizes: [4, 16]}\n")
            .find("scenario.yaml:1:52: a preferred batch of 16 samples is larger than max_batch 8") != std::string::npos);
  CHECK(error_of("serving: {max_batch: 8, preferred_batch_sizes: []}\n") != "no error");
  CHECK(error_of("serving: {max_batch: 8, request_batch: 4, preferred_batch_sizes: [2]}\n")
            .find("holds no whole request") != std::string::npos);
}

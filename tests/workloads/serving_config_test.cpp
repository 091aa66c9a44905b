// The serving: section (keys, defaults, bad input at file:line:column), arrival traces and the arrival
// processes (docs/serving.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/serving/request_arrival.h"
#include "workloads/serving/serving_config.h"

using namespace hpcsim;

namespace {

const std::string kScenario = std::string(HPCSIM_TEST_DATA_DIR) + "/serving/scenario.yaml";

ServingConfig parse(const std::string& yaml) {
  return parse_serving(parse_config_text(yaml, kScenario).at("serving"));
}

// The ConfigError's "file:line:column: message".
std::string error_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("serving: the issue's keys are read with their units", "[serving][config]") {
  const ServingConfig c = parse(
      "serving: {replicas: 2, arrival: poisson, rate_rps: 200, requests: 100000, seed: 1, max_batch: 8,\n"
      "          max_queue_delay: 5ms, workers: 1, load_balancer: least_outstanding, queue_limit: 1000, timeout: 2s}\n");
  CHECK(c.replicas == 2);
  CHECK(c.arrival == ArrivalKind::poisson);
  CHECK(*c.rate_rps == 200);
  CHECK(c.requests == 100000);
  CHECK(c.max_batch == 8);
  CHECK(c.max_queue_delay_s == Approx(0.005));
  CHECK(c.load_balancer == LoadBalancer::least_outstanding);
  CHECK(c.queue_limit == 1000);
  CHECK(c.timeout_s == Approx(2.0));
  CHECK_FALSE(c.offline());
}

TEST_CASE("serving: defaults, and no rate means offline", "[serving][config]") {
  const ServingConfig c = parse("serving: {}\n");
  CHECK(c.replicas == 1);
  CHECK(c.workers == 1);
  CHECK(c.max_batch == 1);
  CHECK(c.max_queue_delay_s == 0);
  CHECK(c.load_balancer == LoadBalancer::round_robin);
  CHECK(std::isinf(c.timeout_s));
  CHECK(c.offline());
  CHECK_FALSE(parse("serving: {concurrency: 4}\n").offline());
}

TEST_CASE("serving: a rate whose arrivals outlast the simulated range is an error at rate_rps", "[serving][config]") {
  CHECK(error_of("serving:\n  rate_rps: 1e-300\n") ==
        kScenario + ":2:13: 10000 requests at 1e-300 per second arrive over more than 1e9 s (about 31.7 years), "
                    "the range hpcsim simulates: raise rate_rps or send fewer requests");
  CHECK_THAT(error_of("serving:\n  rate_rps: 1e-4\n  requests: 1000000\n"), Catch::StartsWith(kScenario + ":2:13:"));
  CHECK(parse("serving:\n  rate_rps: 1e-5\n").rate_rps == 1e-5);  // 10,000 requests over ~1e9 s: in range
  CHECK_THAT(error_of("serving:\n  timeout: 1e308 s\n"), Catch::Contains("a time may be at most 1e9 s"));
}

TEST_CASE("serving: bad values are errors at their file:line:column", "[serving][config]") {
  CHECK(error_of("serving:\n  rate_rps: -5\n") == kScenario + ":2:13: must be > 0, got -5");
  CHECK_THAT(error_of("serving:\n  replicas: 0\n"), Catch::StartsWith(kScenario + ":2:13:"));
  CHECK_THAT(error_of("serving:\n  max_batch: 0\n"), Catch::StartsWith(kScenario + ":2:14:"));
  CHECK_THAT(error_of("serving:\n  max_queue_delay: 5 parsecs\n"), Catch::StartsWith(kScenario + ":2:20:"));
  CHECK_THAT(error_of("serving:\n  load_balancer: random\n"), Catch::Contains("least_outstanding"));
  CHECK_THAT(error_of("serving:\n  replicaz: 2\n"), Catch::StartsWith(kScenario + ":2:3:"));
  CHECK_THAT(error_of("serving:\n  rate_rps: 10\n  concurrency: 4\n"),
             Catch::StartsWith(kScenario + ":3:16:") && Catch::Contains("not both"));
  CHECK_THAT(error_of("serving:\n  arrival: bursty\n"), Catch::StartsWith(kScenario + ":2:12:") && Catch::Contains("rate_rps"));
  CHECK_THAT(error_of("serving:\n  rate_rps: 10\n  burst_ratio: 4\n"),
             Catch::StartsWith(kScenario + ":3:16:") && Catch::Contains("bursty"));
  CHECK_THAT(error_of("serving:\n  arrival: trace\n"), Catch::Contains("trace: FILE"));
  CHECK_THAT(error_of("serving:\n  arrival: trace\n  trace: missing.csv\n"),
             Catch::StartsWith(kScenario + ":3:10:") && Catch::Contains("missing.csv"));
}

TEST_CASE("serving: a trace file is read relative to the scenario, with token lengths", "[serving][config]") {
  const ServingConfig c = parse("serving:\n  arrival: trace\n  trace: arrivals.csv\n");
  REQUIRE(c.trace.size() == 4);
  CHECK(c.requests == 4);
  CHECK(c.trace[1].time_s == 0.5);
  CHECK(c.trace[1].input_len == 256);
  CHECK(c.trace[3].output_len == 64);
  CHECK_FALSE(c.offline());
  // The trace's own clock, or stretched to a mean rate: its first three take 2 gaps over 1.5 s (4/3 per s);
  // at 1.5 per s every time shrinks by (4/3) / 1.5, so 1.5 s becomes 4/3 s.
  CHECK(generate_arrivals(c)[3].time_s == 4.0);
  const ServingConfig stretched = parse("serving:\n  arrival: trace\n  trace: arrivals.csv\n  rate_rps: 1.5\n  requests: 3\n");
  REQUIRE(stretched.requests == 3);
  CHECK(generate_arrivals(stretched)[2].time_s == Approx(4.0 / 3.0));
}

TEST_CASE("arrival traces: malformed lines are file:line:column errors", "[serving][config]") {
  auto error = [](const std::string& text) {
    try {
      parse_arrival_trace(text, "t.csv");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(parse_arrival_trace("# header\n\n0.25\n1 # late\n", "t.csv").size() == 2);
  CHECK(error("0.1\nabc\n") == "t.csv:2:1: field 1 of a trace line is not a number: 'abc'");
  CHECK(error("0.1, 12, x\n") == "t.csv:1:10: field 3 of a trace line is not a number: 'x'");
  CHECK_THAT(error("0.1, 12\n"), Catch::StartsWith("t.csv:1:1:") && Catch::Contains("2 fields"));
  CHECK_THAT(error("1.0\n0.5\n"), Catch::StartsWith("t.csv:2:1:") && Catch::Contains("must not decrease"));
  CHECK_THAT(error("-1\n"), Catch::StartsWith("t.csv:1:1:"));
  CHECK_THAT(error("0, 0, 5\n"), Catch::StartsWith("t.csv:1:4:") && Catch::Contains("input_len"));
}

TEST_CASE("poisson arrivals: mean gap 1/rate, seeded", "[serving][arrivals]") {
  const auto a = poisson_arrivals(100, 50000, 3);
  CHECK(a.back().time_s / 50000 == Approx(0.01).epsilon(0.02));
  CHECK(poisson_arrivals(100, 10, 3)[9].time_s == a[9].time_s);
  CHECK(poisson_arrivals(100, 10, 4)[9].time_s != a[9].time_s);
}

TEST_CASE("bursty arrivals: the mean rate is rate_rps, the counts are overdispersed", "[serving][arrivals]") {
  // Index of dispersion of counts per 1 s window: 1 for Poisson, far above 1 for the MMPP.
  auto dispersion = [](const std::vector<RequestArrival>& a) {
    const int windows = static_cast<int>(a.back().time_s);
    std::vector<double> counts(windows, 0);
    for (const RequestArrival& r : a) {
      if (r.time_s < windows) counts[static_cast<int>(r.time_s)] += 1;
    }
    double mean = 0, var = 0;
    for (const double n : counts) mean += n / windows;
    for (const double n : counts) var += (n - mean) * (n - mean) / (windows - 1);
    return var / mean;
  };
  // 100 ms bursts every second on average: 4,000 cycles keep the sampling error of the mean rate near 1 %.
  const auto bursty = bursty_arrivals(100, BurstShape{10, 0.1, 0.9}, 400000, 5);
  CHECK(bursty.size() / bursty.back().time_s == Approx(100).epsilon(0.03));
  CHECK(dispersion(bursty) > 5);
  CHECK(dispersion(poisson_arrivals(100, 400000, 5)) == Approx(1).epsilon(0.1));
}

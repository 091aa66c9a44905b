// The synthetic workload: deterministic for a seed, queue order, sizes and estimates in range, and the
// offered load, size and estimate mix it promises.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "workloads/scheduling/synthetic_trace.h"

using namespace hpcsim;

namespace {

bool same(const std::vector<BatchJob>& a, const std::vector<BatchJob>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].submit_s != b[i].submit_s || a[i].run_s != b[i].run_s ||
        a[i].estimate_s != b[i].estimate_s || a[i].nodes != b[i].nodes) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("synthetic_trace: one seed, one trace: another seed, another", "[scheduling][synthetic]") {
  SyntheticTraceOptions options;
  options.jobs = 2000;
  options.seed = 42;
  const std::vector<BatchJob> a = synthetic_trace(options);
  CHECK(same(a, synthetic_trace(options)));
  options.seed = 43;
  CHECK_FALSE(same(a, synthetic_trace(options)));
  // Pinned: the engine and our arithmetic are portable; a change here changes every benchmark's input.
  options.seed = 1;
  options.jobs = 3;
  const std::vector<BatchJob> pinned = synthetic_trace(options);
  REQUIRE(pinned.size() == 3);
  // (id, submit, nodes, run, estimate) of seed 1 with the default options.
  const std::vector<std::vector<double>> expected = {{1, 0, 1, 277, 819}, {2, 16, 1, 1938, 3229}, {3, 23, 2, 895, 1730}};
  for (std::size_t i = 0; i < 3; ++i) {
    const BatchJob& j = pinned[i];
    CHECK(std::vector<double>{static_cast<double>(j.id), j.submit_s, static_cast<double>(j.nodes), j.run_s, j.estimate_s} ==
          expected[i]);
  }
}

TEST_CASE("synthetic_trace: queue order, jobs that fit, estimates at least the run time", "[scheduling][synthetic]") {
  SyntheticTraceOptions options;
  options.jobs = 20000;
  options.machine_nodes = 1000;
  options.seed = 3;
  const std::vector<BatchJob> jobs = synthetic_trace(options);
  REQUIRE(jobs.size() == 20000);
  const int max_nodes = static_cast<int>(options.max_job_fraction * options.machine_nodes);  // 62
  double work = 0;
  int serial = 0, power_of_two = 0, exact = 0, small = 0, largest = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const BatchJob& j = jobs[i];
    INFO("job " << j.id);
    REQUIRE(j.id == static_cast<std::int64_t>(i) + 1);
    if (i > 0) REQUIRE(j.submit_s >= jobs[i - 1].submit_s);
    REQUIRE(j.submit_s == std::floor(j.submit_s));
    REQUIRE(j.nodes >= 1);
    REQUIRE(j.nodes <= max_nodes);
    REQUIRE(j.run_s >= options.min_run_s);
    REQUIRE(j.run_s <= options.max_run_s);
    REQUIRE(j.run_s == std::floor(j.run_s));
    REQUIRE(j.estimate_s >= j.run_s);
    REQUIRE(j.estimate_s <= std::ceil(j.run_s * options.max_overestimate));
    work += j.run_s * j.nodes;
    serial += j.nodes == 1;
    power_of_two += j.nodes > 1 && (j.nodes & (j.nodes - 1)) == 0;
    exact += j.estimate_s == j.run_s;
    small += j.nodes <= 8;
    largest = std::max(largest, j.nodes);
  }
  const double n = static_cast<double>(jobs.size());
  // Offered load over the span of submits: the Poisson rate makes it 0.9 in expectation.
  const double load = work / (options.machine_nodes * jobs.back().submit_s);
  CHECK(load == Approx(0.9).epsilon(0.05));
  CHECK(serial / n == Approx(0.25).margin(0.02));
  CHECK(power_of_two / (n - serial) > 0.75);  // rounded to a power of two, plus those that land on one
  CHECK(exact / n == Approx(0.15).margin(0.02));
  CHECK(small / n > 0.6);   // mostly small
  CHECK(largest >= 48);     // with a tail
}

TEST_CASE("synthetic_trace: options out of range are errors", "[scheduling][synthetic][errors]") {
  SyntheticTraceOptions options;
  options.machine_nodes = 0;
  CHECK_THROWS_WITH(synthetic_trace(options), Catch::Contains("at least one node"));
  options = {};
  options.load = 0;
  CHECK_THROWS_WITH(synthetic_trace(options), Catch::Contains("load"));
  options = {};
  options.min_run_s = 100, options.max_run_s = 10;
  CHECK_THROWS_WITH(synthetic_trace(options), Catch::Contains("min_run_s"));
  options = {};
  options.max_overestimate = 0.5;
  CHECK_THROWS_WITH(synthetic_trace(options), Catch::Contains("max_overestimate"));
  options = {};
  options.machine_nodes = 1;
  options.jobs = 50;
  for (const BatchJob& j : synthetic_trace(options)) CHECK(j.nodes == 1);
}

#include "workloads/serving/max_rate_search.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "configs/units.h"

namespace hpcsim {

namespace {


// Doublings of the top of the bracket before giving up on finding a failing rate (2^40 x capacity).
constexpr int kMaxDoublings = 40;
// Bisection steps: enough for any tolerance down to 1e-12 from a bracket [0, top].
constexpr int kMaxBisections = 64;
// The lowest rate tried, as a share of the saturated capacity, while no rate has passed.
constexpr double kFloorOfCapacity = 1e-6;

}  // namespace

MaxRateSearch max_rate_within_p99(const ServingConfig& config, const BatchServiceTime& service, double bound_p99_s,
                                  double rel_tolerance) {
  if (config.closed_loop()) throw std::invalid_argument("max_rate_within: a closed loop (concurrency) has no arrival rate");
  if (!(bound_p99_s > 0) || !(rel_tolerance > 0)) throw std::invalid_argument("max_rate_within: the bound and tolerance must be positive");
  MaxRateSearch out;
  const std::string bound = "the p99 bound of " + format_quantity(bound_p99_s, Dimension::time);
  const FrontEnd& fe = config.front_end;
  const double front_end_s = fe.threads > 0 ? fe.per_request_s : 0;
  const double lone = front_end_s + (config.requests_per_batch() > 1 ? config.max_queue_delay_s : 0) +
                      service(config.request_batch);
  if (lone > bound_p99_s) {
    out.reason = "no rate is within " + bound + ": even a lone request takes " + format_quantity(lone, Dimension::time);
    return out;
  }
  // Saturated capacity in requests/s: above it the queue grows without bound.
  double capacity = config.replicas * config.workers * config.requests_per_batch() / service(config.full_batch());
  if (fe.threads > 0 && fe.per_request_s > 0) capacity = std::min(capacity, config.replicas * fe.threads / fe.per_request_s);

  auto within = [&](double rate, ServingSummary& summary) {
    ServingConfig at = config;
    at.rate_rps = rate;
    at.max_rate_p99_s.reset();
    summary = summarize_serving(simulate_serving(at, service));
    ++out.runs;
    return summary.dropped == 0 && summary.latency_p99_s <= bound_p99_s;
  };
  // (pass, fail]: a finite run can stay within the bound somewhat above capacity, so double until it fails.
  double pass = 0, fail = capacity;
  ServingSummary trial, pass_summary;
  for (int k = 0; within(fail, trial); ++k) {
    if (k == kMaxDoublings) {
      // Not a property of the endpoint but of the run: its requests pass at any rate (a short trace). An input
      // error, not an answer.
      throw std::invalid_argument("max_rate_within: no rate up to " + std::to_string(fail) + " requests/s exceeds " +
                                  bound + ": " + std::to_string(config.requests) +
                                  " requests are too few to load the endpoint (give more requests, or a longer trace)");
    }
    pass = fail;
    pass_summary = trial;
    fail *= 2;
  }
  // While nothing passes, stop at a millionth of the capacity: there every request is alone in the endpoint,
  // so a failure is the endpoint's at any rate (a queue limit of 0 drops every one that waits), and lower rates
  // only stretch the run's simulated time toward the end of its range (an internal error, found by fuzzing).
  const double floor_rps = capacity * kFloorOfCapacity;
  for (int k = 0; k < kMaxBisections && fail - pass > rel_tolerance * pass && (pass > 0 || fail > floor_rps); ++k) {
    const double mid = 0.5 * (pass + fail);
    if (within(mid, trial)) {
      pass = mid;
      pass_summary = trial;
    } else {
      fail = mid;
    }
  }
  if (!(pass > 0)) {
    // No p99 when every request was dropped (none served has a latency).
    const std::string p99 = std::isfinite(trial.latency_p99_s) ? "p99 " + format_quantity(trial.latency_p99_s, Dimension::time) + ", " : "";
    out.reason = "no rate down to " + std::to_string(fail) + " requests/s is within " + bound + " (" + p99 +
                 std::to_string(trial.dropped) + " dropped)";
    return out;
  }
  out.met = true;
  out.rate_rps = pass;
  out.summary = pass_summary;
  return out;
}

}  // namespace hpcsim

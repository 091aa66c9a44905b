#pragma once
// The highest sustainable rate under a latency bound (`hpcsim serve --max-rate-within p99=130ms`,
// `serving.max_rate_within: {p99: 130 ms}`): what MLPerf Inference's server scenario reports, the Poisson
// rate a system keeps with its p99 latency within the benchmark's bound. A bisection over simulated runs of
// the config's own arrival process (its seed, its requests) at trial rates, so it is deterministic.
#include <string>

#include "workloads/serving/serving_summary.h"

namespace hpcsim {

struct MaxRateSearch {
  bool met = false;
  double rate_rps = 0;     // met: the highest rate found within the bound (requests/s)
  ServingSummary summary;  // met: the run at that rate
  int runs = 0;            // simulated runs the search took
  std::string reason;      // not met: why no rate is within the bound
};

// A rate is within the bound when the run at it drops nothing and its p99 latency is at most bound_p99_s.
// The search brackets the rate between 0 and the endpoint's saturated capacity (replicas x workers x a full
// batch's requests per service time, or the front end's threads per request time when lower), doubling the
// top while a finite run still passes there, then bisects until the failing rate is within rel_tolerance of
// the passing one: the answer passes and (1 + rel_tolerance) times it fails. It assumes one crossing
// (p99 rising with the rate around the answer). Not met, with the reason, when a lone request (a front end,
// the queue delay of a partial batch, and its request_batch's service) already exceeds the bound, or no
// trial rate passes. std::invalid_argument for a closed-loop config (it has no rate), a bound or tolerance
// that is not positive, or requests too few to load the endpoint at any rate (they pass at 2^k x capacity).
MaxRateSearch max_rate_within_p99(const ServingConfig& config, const BatchServiceTime& service, double bound_p99_s,
                                  double rel_tolerance = 1e-3);

}  // namespace hpcsim

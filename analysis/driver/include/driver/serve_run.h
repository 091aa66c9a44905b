#pragma once
// A serve scenario run as `hpcsim serve` (and `hpcsim run`, `hpcsim validate`) runs it: the endpoint
// simulated once, at several loads, or searched for the fewest replicas meeting a p99 target, as a report
// whose metric names are the serve JSON contract (serve_report.h).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "store/metric.h"
#include "workloads/serving/serve_scenario.h"

namespace hpcsim {

struct ServeRun {
  Report report;
  std::string cannot_meet;  // a --target-p99 no replica count meets, a bound no rate keeps: why (empty otherwise)
};

// The scenario as its file says: one run at its load (or offline when it gives none), or with
// serving.max_rate_within the rate search (serve_max_rate). after_each(done, total): each request an LLM
// endpoint finishes (its run is the long one: minutes at the requests limit), for a progress line.
ServeRun serve_once(const ServeScenario& scenario, const std::function<void(std::size_t, std::size_t)>& after_each = {});
// The highest rate whose p99 stays within bound_p99_s (max_rate.*: bound_p99_s, met, rate_rps,
// samples_per_s, p99_s, runs) and the run at that rate; not met: cannot_meet says why.
ServeRun serve_max_rate(const ServeScenario& scenario, double bound_p99_s);
// The scenario at each rate: the run at its own load (or offline) first, then sweep.*[i] per rate.
// after_each(done, total): each of those runs finished (the scenario's own counted first).
ServeRun serve_load_sweep(const ServeScenario& scenario, const std::vector<double>& rates_rps,
                          const std::function<void(std::size_t, std::size_t)>& after_each = {});
// The fewest replicas whose p99 meets target_s (target.*: met, replicas, p99), and that run's metrics.
ServeRun serve_replica_search(const ServeScenario& scenario, double target_s, int max_replicas);

}  // namespace hpcsim

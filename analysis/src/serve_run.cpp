#include "analysis/serve_run.h"

#include "analysis/serve_report.h"
#include "workloads/serving/load_sweep.h"
#include "workloads/serving/replica_search.h"

namespace hpcsim {

ServeRun serve_once(const ServeScenario& s) {
  const ServingSummary summary = summarize_serving(simulate_serving(s.serving, replica_service_time(s)));
  return {serve_report(s.name, summary, s.setup.price_per_hour), {}};
}

ServeRun serve_load_sweep(const ServeScenario& s, const std::vector<double>& rates_rps) {
  ServeRun run = serve_once(s);
  for (Metric& m : load_sweep_metrics(sweep_load(s.serving, replica_service_time(s), rates_rps), s.setup.price_per_hour)) {
    run.report.metrics.push_back(std::move(m));
  }
  return run;
}

ServeRun serve_replica_search(const ServeScenario& s, double target_s, int max_replicas) {
  const ReplicaSearch search = fewest_replicas_for_p99(s.serving, replica_service_time(s), target_s, max_replicas);
  ServeRun run;
  run.report = serve_report(s.name, search.summary, s.setup.price_per_hour);
  run.report.metrics.push_back({"target.p99_s", target_s, "s"});
  run.report.metrics.push_back({"target.met", search.met ? 1.0 : 0.0, "bool"});
  run.report.metrics.push_back({"target.replicas", search.met ? std::optional<double>(search.replicas) : std::nullopt, "count"});
  if (!search.met) run.cannot_meet = search.reason;
  return run;
}

}  // namespace hpcsim

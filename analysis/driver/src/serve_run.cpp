#include "driver/serve_run.h"

#include <stdexcept>

#include "report/llm_serving_report.h"
#include "report/serve_report.h"
#include "workloads/layers/layer.h"
#include "workloads/serving/llm/llm_load.h"
#include "workloads/serving/llm/llm_replica_cost.h"
#include "workloads/serving/llm/llm_serving.h"
#include "workloads/serving/load_sweep.h"
#include "workloads/serving/max_rate_search.h"
#include "workloads/serving/replica_search.h"

namespace hpcsim {

namespace {

// An LLM endpoint: each replica's round-robin share simulated by the continuous-batching engine.
ServeRun llm_serve_once(const ServeScenario& s, const std::function<void(std::size_t, std::size_t)>& after_each) {
  LlmReplicaCost cost = llm_replica_cost(s.setup, s.llm_keys.kv_cache_dtype.value_or(between_gemms(s.setup.precision)));
  const LlmServingResult result = simulate_llm_serving(
      cost, s.llm_keys.engine, llm_replica_load(s.serving, s.setup.input_len, s.setup.output_len), after_each);
  ServeRun run;
  run.report = serve_report(s.name, summarize_llm_serving(result, s.serving.replicas, s.serving.offline()),
                            s.setup.price_per_hour);
  for (Metric& m : llm_serving_metrics(result, s.serving.replicas)) run.report.metrics.push_back(std::move(m));
  return run;
}

void require_request_level(const ServeScenario& s, const char* what) {
  if (s.llm) {
    throw std::invalid_argument(std::string(what) + " is built for request-level endpoints; " + s.name +
                                " is an LLM endpoint (workload.output_len): vary serving.rate_rps or "
                                "serving.replicas with --set instead");
  }
}

}  // namespace

ServeRun serve_once(const ServeScenario& s, const std::function<void(std::size_t, std::size_t)>& after_each) {
  if (s.llm) return llm_serve_once(s, after_each);
  if (s.serving.max_rate_p99_s) return serve_max_rate(s, *s.serving.max_rate_p99_s);
  const ServingSummary summary = summarize_serving(simulate_serving(s.serving, replica_service_time(s)));
  return {serve_report(s.name, summary, s.setup.price_per_hour), {}};
}

ServeRun serve_load_sweep(const ServeScenario& s, const std::vector<double>& rates_rps,
                          const std::function<void(std::size_t, std::size_t)>& after_each) {
  require_request_level(s, "--sweep-load");
  ServeRun run = serve_once(s);
  const std::size_t runs = rates_rps.size() + 1;
  if (after_each) after_each(1, runs);
  const auto after_rate = [&](std::size_t done, std::size_t) {
    if (after_each) after_each(done + 1, runs);
  };
  for (Metric& m : load_sweep_metrics(sweep_load(s.serving, replica_service_time(s), rates_rps, after_rate),
                                      s.setup.price_per_hour)) {
    run.report.metrics.push_back(std::move(m));
  }
  return run;
}

ServeRun serve_max_rate(const ServeScenario& s, double bound_p99_s) {
  require_request_level(s, "--max-rate-within");
  if (s.serving.closed_loop()) {
    throw std::invalid_argument("--max-rate-within searches an arrival rate; " + s.name +
                                " is a closed loop (serving.concurrency) and has none");
  }
  const MaxRateSearch search = max_rate_within_p99(s.serving, replica_service_time(s), bound_p99_s);
  ServeRun run;
  run.report = serve_report(s.name, search.summary, s.setup.price_per_hour);
  const auto if_met = [&](double v) { return search.met ? std::optional<double>(v) : std::nullopt; };
  run.report.metrics.push_back({"max_rate.bound_p99_s", bound_p99_s, "s"});
  run.report.metrics.push_back({"max_rate.met", search.met ? 1.0 : 0.0, "bool"});
  run.report.metrics.push_back({"max_rate.rate_rps", if_met(search.rate_rps), "1/s"});
  run.report.metrics.push_back({"max_rate.samples_per_s", if_met(search.rate_rps * s.serving.request_batch), "1/s"});
  run.report.metrics.push_back({"max_rate.p99_s", if_met(search.summary.latency_p99_s), "s"});
  run.report.metrics.push_back({"max_rate.runs", static_cast<double>(search.runs), "count"});
  if (!search.met) run.cannot_meet = search.reason;
  return run;
}

ServeRun serve_replica_search(const ServeScenario& s, double target_s, int max_replicas) {
  require_request_level(s, "--target-p99");
  if (s.serving.max_rate_p99_s) {
    throw std::invalid_argument("--target-p99 finds replicas for the scenario's rate; " + s.name +
                                " searches the rate itself (serving.max_rate_within)");
  }
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

#include "workloads/serving/serve_scenario.h"

#include <algorithm>
#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "models/gpu/precision.h"
#include "workloads/inference/batch_latency.h"
#include "workloads/scenario/scenario_kind.h"
#include "workloads/serving/front_end_spec.h"
#include "workloads/serving/request_arrival.h"
#include "workloads/serving/service_table.h"

namespace hpcsim {

namespace {

// Values one sample sends: the model's first layer's inputs for one sample.
double input_values_per_sample(const Model& model) {
  for (const Network& net : model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (!n.layer) continue;
      double values = 0;
      for (const Shape& shape : n.input_shapes) values += static_cast<double>(elements(shape));
      return values;
    }
  }
  return 0;
}

}  // namespace

const Schema& serve_scenario_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      required("kind", scenario_kind_schema(), "serve"),
      optional("name", Schema::string(), "the run's name in outputs and the results store", "the file's name"),
      required("cluster", inference_cluster_schema(), "the instance a replica runs on"),
      required("workload", inference_workload_schema(), "the model and how it runs"),
      optional("serving", serving_schema(), "the request stream and the batching policy", "offline, batch 1"),
      optional("parallelism", inference_parallelism_schema(), "GPUs per replica", "tp 1"),
      optional("measured",
               measured_schema({Schema::string(),
                                "a metric of the serve report the prediction is read from (latency_s.mean, "
                                "latency_s.p99, throughput_rps, ttft_s.p99, tpot_s.p50, output_tokens_per_s, ...)",
                                Schema::one_of({"cpu-infer", "gpu-infer", "llm-serve"}), true}),
               "a published measurement the prediction is validated against", "none"),
  });
  return schema;
}

ServeScenario parse_serve_scenario(const ConfigNode& root, const SpecCatalog& catalog, const std::string& default_name) {
  serve_scenario_schema().validate(root);
  ServeScenario s;
  s.name = root.get_string_or("name", default_name);
  s.setup = parse_inference_setup(root, catalog);
  const ConfigNode* serving = root.find("serving");
  if (serving) {
    s.serving = parse_serving(*serving);
    s.llm_keys = parse_llm_serving_keys(*serving);
  }
  s.llm = s.setup.output_len > 0;
  // The largest batch the endpoint runs: whole requests of request_batch samples up to max_batch.
  if (s.setup.framework.tunes_for_largest_batch && s.setup.on_gpu() && !s.llm) s.setup.tuned_batch = s.serving.full_batch();
  if (const ConfigNode* front_end = serving ? serving->find("front_end") : nullptr) {
    if (s.llm) {
      throw ConfigError(front_end->loc(), "front_end receives a model's input tensors; an LLM endpoint "
                                          "(workload.output_len) takes token requests and has none");
    }
    const FrontEndSpec spec = load_front_end_spec(catalog, *front_end);
    // Per sample; a request carries request_batch samples and gets one response.
    const double bytes = input_values_per_sample(s.setup.model) *
                         input_dtype_bytes(serving->get_string_or("input_dtype", "fp32"));
    s.serving.front_end = FrontEnd{spec.threads, spec.request_s(bytes * s.serving.request_batch)};
    s.setup.host_input_bytes = bytes;
    s.setup.host_input_bandwidth = spec.compute_input_bandwidth;
    // batch_latency_s charges it per sample of a batch: one response per request_batch samples.
    s.setup.host_output_s_per_request = spec.compute_output_per_request_s / s.serving.request_batch;
  }
  if (s.llm) {
    // The LLM engine's requests are single prompts: the request-level engine's keys are refused there.
    for (const char* key : {"request_batch", "max_rate_within"}) {
      if (const ConfigNode* k = serving ? serving->find(key) : nullptr) {
        throw ConfigError(k->loc(), std::string(key) + " is read by request-level endpoints; an LLM endpoint "
                                    "(workload.output_len) serves single prompts (docs/llm-serving.md)");
      }
    }
  }
  if (s.llm && !s.setup.on_gpu()) {
    throw ConfigError(root.at("workload").at("output_len").loc(),
                      "LLM serving (workload.output_len) runs on GPU instances; " + s.setup.node_name + " has none");
  }
  if (s.llm && s.setup.input_len <= 0) {
    throw ConfigError(root.at("workload").loc(), "an LLM endpoint needs workload.input_len beside output_len");
  }
  if (s.llm) {
    // The engine runs an iteration per token of its batch, so its work grows with the output tokens: one
    // request at a time, 500 tokens each, a million requests are half a billion iterations.
    double tokens = 0;
    std::string what;
    if (s.serving.arrival == ArrivalKind::trace) {
      for (const RequestArrival& a : s.serving.trace) tokens += a.output_len > 0 ? a.output_len : s.setup.output_len;
      what = "the LLM load (the trace's " + std::to_string(s.serving.trace.size()) + " requests)";
    } else {
      tokens = static_cast<double>(s.serving.requests) * static_cast<double>(s.setup.output_len);
      what = "the LLM load (" + std::to_string(s.serving.requests) + " requests x " +
             std::to_string(s.setup.output_len) + " output tokens)";
    }
    const ConfigNode* requests = serving ? serving->find("requests") : nullptr;
    check_count(CountLimit::tokens, tokens, requests ? requests->loc() : root.at("workload").at("output_len").loc(),
                what);
  }
  if (!s.llm && s.serving.offline() && !(serving && serving->has("requests"))) {
    // Offline, every request is there at once and every worker takes full batches: a whole number of rounds
    // (each worker of each replica one full batch per round) keeps them all busy to the end, so the run's
    // throughput is the saturated one. 10,000 requests over 112 workers of 256 would leave 73 of them idle.
    const std::int64_t per_round = std::int64_t{s.serving.replicas} * s.serving.workers * s.serving.requests_per_batch();
    const std::int64_t rounds = std::max<std::int64_t>(1, (s.serving.requests + per_round - 1) / per_round);
    s.serving.requests = std::min(rounds * per_round, static_cast<std::int64_t>(count_limit(CountLimit::requests)));
  }
  if (!s.llm) {
    const int fits = max_batch_in_memory(s.setup);
    if (fits < 1) {
      throw ConfigError(root.at("workload").at("model").loc(),
                        s.setup.model_name + " does not fit in the memory of one replica of " + s.setup.node_name);
    }
    if (s.serving.max_batch > fits) {
      throw ConfigError(serving->at("max_batch").loc(),
                        "a batch of " + std::to_string(s.serving.max_batch) +
                            " does not fit in the memory of one replica (" + s.setup.node_name + " holds at most " +
                            std::to_string(fits) + ")");
    }
  }
  if (const ConfigNode* m = root.find("measured")) {
    s.measured = parse_measured(*m);
  }
  return s;
}

BatchServiceTime replica_service_time(const ServeScenario& scenario) {
  const InferenceSetup& setup = scenario.setup;
  return tabulate_service([&setup](int batch) { return batch_latency_s(setup, batch); }, scenario.serving.max_batch);
}

}  // namespace hpcsim

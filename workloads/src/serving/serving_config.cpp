#include "workloads/serving/serving_config.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>
#include <utility>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/input_limits.h"
#include "configs/units.h"
#include "models/gpu/precision.h"

namespace hpcsim {

namespace {

// Token ids' integer types and their bytes per value.
constexpr std::array<std::pair<std::string_view, double>, 2> kTokenIdDtypes{{{"int32", 4}, {"int64", 8}}};

// A client's input tensors: floating-point or int8 values in a precision, or token ids as integers.
std::vector<std::string> input_dtype_names() {
  std::vector<std::string> names =
      kPrecisionNames.names({Precision::fp32, Precision::fp16, Precision::bf16, Precision::int8});
  for (const auto& [name, bytes] : kTokenIdDtypes) names.emplace_back(name);
  return names;
}

}  // namespace

double input_dtype_bytes(const std::string& dtype) {
  for (const auto& [name, bytes] : kTokenIdDtypes) {
    if (name == dtype) return bytes;
  }
  return bytes_per_element(*parse_precision(dtype));  // the schema admits only precisions besides these
}

const Schema& serving_schema() {
  static const Schema time = Schema::quantity(Dimension::time, "s");
  static const Schema schema = Schema::map({
      optional("replicas", Schema::integer().at_least(1), "instances serving the model behind the load balancer", "1"),
      optional("arrival", Schema::one_of(kArrivalKindNames.names()),
               "how requests arrive: a Poisson process, bursts (a two-state Markov-modulated Poisson process), "
               "or the times in `trace`",
               "poisson"),
      optional("rate_rps", Schema::number().positive(),
               "mean arrival rate in requests per second (with a trace: stretch it to this mean rate)",
               "none: every request at time 0 (offline: the saturated throughput and one full batch's latency), "
               "or the trace's own times"),
      optional("requests", Schema::integer().at_least(1), "requests to simulate (at most the requests limit, docs/limits.md)",
               "10000 (a trace: all of its lines)"),
      optional("seed", Schema::integer().wide().at_least(0), "seed of the arrival draws", "1"),
      optional("max_batch", Schema::integer().at_least(1),
               "most samples a worker takes into one batch, in whole queued requests (Triton's max_batch_size, "
               "TorchServe's batchSize)",
               "1"),
      optional("request_batch", Schema::integer().at_least(1),
               "samples each request carries (a client sending 32 images in one request: perf_analyzer's -b); a "
               "batch holds the whole requests whose samples fit max_batch",
               "1"),
      optional("max_rate_within", Schema::map({required("p99", time.positive(), "the latency bound")}),
               "instead of one run at rate_rps: search the highest Poisson (or bursty, or stretched trace) rate "
               "whose p99 latency stays within the bound with nothing dropped (MLPerf's server scenario)",
               "none: one run at the scenario's load"),
      optional("max_queue_delay", time.at_least(0),
               "longest a partial batch waits, from when its oldest request was queued, for more requests "
               "(Triton's max_queue_delay_microseconds, TorchServe's maxBatchDelay)",
               "0: a free worker takes what is queued"),
      optional("preferred_batch_sizes", Schema::list(Schema::integer().at_least(1)).non_empty(),
               "batch sizes in samples (each at most max_batch) a worker prefers, as Triton's dynamic batcher's "
               "preferred_batch_size: it takes the largest of them the queue reaches at once, and never more than "
               "the largest; with fewer queued it waits out max_queue_delay and takes what is queued",
               "none: max_batch is the only preferred size"),
      optional("workers", Schema::integer().at_least(1),
               "workers per replica, each running one batch at a time from the replica's one queue", "1"),
      optional("load_balancer", Schema::one_of(kLoadBalancerNames.names()),
               "which replica a request goes to: the next in turn, or the one with the fewest requests queued or "
               "in service",
               "round_robin"),
      optional("queue_limit", Schema::integer().at_least(0),
               "most requests queued (not yet in a batch) per replica; one arriving to a full queue is dropped",
               "no limit"),
      optional("timeout", time.positive(), "a request still queued this long after it reached the queue is dropped",
               "no timeout"),
      optional("concurrency", Schema::integer().at_least(1),
               "a closed loop instead of arrivals: this many clients, each sending its next request when the "
               "previous one returns or is dropped (Triton perf_analyzer's --concurrency-range, MLPerf's server "
               "clients)",
               "none: open-loop arrivals"),
      optional("front_end", Schema::string(),
               "the server's request front end, a name in configs/frontends (e.g. triton-http): each request holds "
               "one of its threads while its input tensors are received, and a GPU replica copies a batch's "
               "inputs to the GPU before running it",
               "none: requests reach the batcher as they arrive, inputs already where the model runs"),
      optional("input_dtype", Schema::one_of(input_dtype_names()),
               "with front_end: the element type of the input tensors clients send (the exported model's input; "
               "token ids are int64 or int32)",
               "fp32"),
      optional("trace", Schema::string(),
               "arrival: trace: a file with one request per line, `time_s[,input_len,output_len]`, relative to "
               "this scenario file",
               "none"),
      optional("burst_ratio", Schema::number().at_least(1), "arrival: bursty: a burst's rate over a calm's",
               "10"),
      optional("burst_duration", time.positive(), "arrival: bursty: mean length of a burst (exponential)", "1 s"),
      optional("calm_duration", time.positive(), "arrival: bursty: mean length of a calm between bursts (exponential)",
               "9 s"),
      // LLM engines (workloads/serving/llm/, docs/llm-serving.md; read by parse_llm_serving_keys).
      optional("max_num_batched_tokens", Schema::integer().at_least(1),
               "LLM: tokens one engine iteration processes over its sequences (vLLM max_num_batched_tokens, "
               "TensorRT-LLM max_num_tokens)",
               "8192"),
      optional("max_num_seqs", Schema::integer().at_least(1),
               "LLM: sequences one iteration holds (vLLM max_num_seqs, TensorRT-LLM max_batch_size)", "256"),
      optional("chunked_prefill", Schema::boolean(),
               "LLM: split a prompt longer than the iteration's token budget over iterations", "true"),
      optional("kv_block_tokens", Schema::integer().at_least(1), "LLM: tokens per KV-cache block (vLLM block_size)",
               "16"),
      optional("gpu_memory_utilization", Schema::number().positive().at_most(1),
               "LLM: share of GPU memory for weights, activations and KV cache (vLLM's rule)", "0.9"),
      optional("kv_cache_free_gpu_mem_fraction", Schema::number().positive().at_most(1),
               "LLM: TensorRT-LLM's rule instead: this share of the memory left after weights and activations "
               "holds the KV cache",
               "none: vLLM's rule"),
      optional("kv_admission", Schema::one_of({"max_utilization", "guaranteed_no_evict"}),
               "LLM: take KV blocks as tokens come and preempt when they run out (vLLM), or admit a request only "
               "when its whole prompt and output fit (TensorRT-LLM's default)",
               "max_utilization"),
      optional("kv_cache_dtype", Schema::one_of(kPrecisionNames.names({Precision::fp16, Precision::bf16, Precision::fp8})), "LLM: how the KV cache is stored",
               "the precision between GEMMs (bf16 under fp8)"),
  });
  return schema;
}

namespace {

// A key that only one arrival kind reads, given with another: an error at the key.
void require_arrival(const ConfigNode& section, const char* key, ArrivalKind wanted, ArrivalKind actual) {
  if (const ConfigNode* value = section.find(key); value && wanted != actual) {
    throw ConfigError(value->loc(), std::string("'") + key + "' is read only with arrival: " +
                                        std::string(kArrivalKindNames.name(wanted)));
  }
}

}  // namespace

ServingConfig parse_serving(const ConfigNode& section) {
  serving_schema().validate(section);
  ServingConfig c;
  c.replicas = static_cast<int>(section.get_int_or("replicas", c.replicas));
  if (const ConfigNode* replicas = section.find("replicas")) {  // each replica's state is held: 2^31 of them was bad_alloc
    check_count(CountLimit::nodes, c.replicas, replicas->loc(), "the endpoint (a node per replica at least)");
  }
  c.arrival = *kArrivalKindNames.parse(section.get_string_or("arrival", "poisson"));
  if (section.has("rate_rps")) c.rate_rps = section.get_number("rate_rps");
  c.requests = section.get_int_or("requests", c.requests);
  if (const ConfigNode* requests = section.find("requests")) {
    check_count(CountLimit::requests, static_cast<double>(c.requests), requests->loc(), "the load");
  }
  c.seed = static_cast<std::uint64_t>(section.get_int_or("seed", 1));
  c.max_batch = static_cast<int>(section.get_int_or("max_batch", c.max_batch));
  c.request_batch = static_cast<int>(section.get_int_or("request_batch", c.request_batch));
  if (c.request_batch > c.max_batch) {
    throw ConfigError(section.at("request_batch").loc(),
                      "a request of " + std::to_string(c.request_batch) + " samples does not fit a batch of max_batch " +
                          std::to_string(c.max_batch) + " (Triton refuses it): raise max_batch to at least " +
                          std::to_string(c.request_batch));
  }
  if (const ConfigNode* preferred = section.find("preferred_batch_sizes")) {
    for (const ConfigNode& size : preferred->items()) {
      const auto samples = static_cast<int>(size.as_int());
      if (samples > c.max_batch) {
        throw ConfigError(size.loc(), "a preferred batch of " + std::to_string(samples) +
                                          " samples is larger than max_batch " + std::to_string(c.max_batch) +
                                          " (Triton refuses it)");
      }
      if (samples < c.request_batch) {
        throw ConfigError(size.loc(), "a preferred batch of " + std::to_string(samples) +
                                          " samples holds no whole request of request_batch " +
                                          std::to_string(c.request_batch));
      }
      c.preferred_batch_sizes.push_back(samples);
    }
    std::sort(c.preferred_batch_sizes.begin(), c.preferred_batch_sizes.end());
    c.preferred_batch_sizes.erase(std::unique(c.preferred_batch_sizes.begin(), c.preferred_batch_sizes.end()),
                                  c.preferred_batch_sizes.end());
  }
  if (const ConfigNode* bound = section.find("max_rate_within")) {
    c.max_rate_p99_s = bound->get_quantity("p99", Dimension::time, "s");
  }
  c.max_queue_delay_s = section.get_quantity_or("max_queue_delay", Dimension::time, 0, "s");
  c.workers = static_cast<int>(section.get_int_or("workers", c.workers));
  c.load_balancer = *kLoadBalancerNames.parse(section.get_string_or("load_balancer", "round_robin"));
  c.queue_limit = section.get_int_or("queue_limit", c.queue_limit);
  c.timeout_s = section.get_quantity_or("timeout", Dimension::time, c.timeout_s, "s");
  c.concurrency = static_cast<int>(section.get_int_or("concurrency", 0));
  c.burst.ratio = section.get_number_or("burst_ratio", c.burst.ratio);
  c.burst.burst_s = section.get_quantity_or("burst_duration", Dimension::time, c.burst.burst_s, "s");
  c.burst.calm_s = section.get_quantity_or("calm_duration", Dimension::time, c.burst.calm_s, "s");

  for (const char* key : {"burst_ratio", "burst_duration", "calm_duration"}) {
    require_arrival(section, key, ArrivalKind::bursty, c.arrival);
  }
  require_arrival(section, "trace", ArrivalKind::trace, c.arrival);
  if (const ConfigNode* bound = section.find("max_rate_within")) {
    if (section.has("rate_rps")) {
      throw ConfigError(bound->loc(), "max_rate_within searches the arrival rate: give it or rate_rps, not both");
    }
    if (c.closed_loop()) {
      throw ConfigError(bound->loc(), "max_rate_within searches an arrival rate; a closed loop (concurrency) has none");
    }
  }
  if (c.closed_loop()) {
    const ConfigNode& at = section.at("concurrency");
    if (section.has("rate_rps")) {
      throw ConfigError(at.loc(), "concurrency is a closed loop (clients send as responses return): give it or rate_rps, not both");
    }
    if (c.arrival != ArrivalKind::poisson) {
      throw ConfigError(at.loc(), "concurrency is a closed loop: it takes no arrival process (arrival: " +
                                      std::string(kArrivalKindNames.name(c.arrival)) + ")");
    }
  }
  if (const ConfigNode* dtype = section.find("input_dtype"); dtype && !section.has("front_end")) {
    throw ConfigError(dtype->loc(), "input_dtype sizes the requests a front_end receives: give front_end too");
  }
  if (c.arrival == ArrivalKind::bursty && !c.rate_rps && !c.max_rate_p99_s) {
    throw ConfigError(section.at("arrival").loc(), "arrival: bursty needs rate_rps (its long-run mean rate)");
  }
  if (c.arrival == ArrivalKind::trace) {
    const ConfigNode* trace = section.find("trace");
    if (!trace) throw ConfigError(section.at("arrival").loc(), "arrival: trace needs `trace: FILE`");
    std::filesystem::path path = trace->as_string();
    // Relative to the file that names it (a --set override has no file: the working directory).
    if (path.is_relative() && trace->loc().has_line()) path = std::filesystem::path(trace->loc().file).parent_path() / path;
    c.trace_file = path.lexically_normal().string();
    if (!std::filesystem::is_regular_file(c.trace_file)) {
      throw ConfigError(trace->loc(), "cannot read the arrival trace '" + c.trace_file + "'");
    }
    c.trace = load_arrival_trace(c.trace_file);
    if (c.trace.empty()) throw ConfigError(trace->loc(), "trace '" + c.trace_file + "' has no requests");
    if (section.has("requests") && c.requests < static_cast<std::int64_t>(c.trace.size())) c.trace.resize(c.requests);
    c.requests = static_cast<std::int64_t>(c.trace.size());
    if ((c.rate_rps || c.max_rate_p99_s) && !(c.trace.back().time_s > c.trace.front().time_s)) {
      throw ConfigError(section.at(c.rate_rps ? "rate_rps" : "max_rate_within").loc(),
                        "a trace is stretched to rate_rps by its span; this one has no two requests at different times");
    }
  }
  // Open-loop arrivals span about requests / rate seconds; past the simulated range is an input error.
  if (c.rate_rps && static_cast<double>(c.requests) / *c.rate_rps > input_limits::max_time_s) {
    throw ConfigError(section.at("rate_rps").loc(),
                      std::to_string(c.requests) + " requests at " + section.at("rate_rps").text() +
                          " per second arrive over more than 1e9 s (about 31.7 years), the range hpcsim "
                          "simulates: raise rate_rps or send fewer requests");
  }
  return c;
}

}  // namespace hpcsim

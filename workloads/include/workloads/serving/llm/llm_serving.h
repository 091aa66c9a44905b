#pragma once
// One LLM serving replica on the sim-core Simulator: continuous batching as vLLM and TensorRT-LLM
// schedule it. Each iteration takes, within a token budget and a sequence limit, one token of every
// decoding sequence first, then the next chunk of prompts being prefilled, then new requests in arrival
// order while KV-cache blocks remain; when a decode finds no free block, the most recently admitted
// sequence is preempted (its blocks freed, its prompt and the tokens it generated recomputed later).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <variant>
#include <vector>

#include "workloads/serving/llm/kv_cache.h"
#include "workloads/serving/llm/llm_engine_config.h"
#include "workloads/serving/llm/llm_replica_cost.h"
#include "workloads/serving/llm/llm_request.h"
#include "workloads/serving/serving_summary.h"

namespace hpcsim {

// Open-loop arrivals (any order; served in arrival order) or closed-loop clients.
using LlmLoad = std::variant<std::vector<LlmRequest>, LlmClosedLoop>;

struct LlmServingResult {
  std::vector<LlmRequestOutcome> requests;  // in the order they were issued
  std::int64_t iterations = 0;
  std::int64_t preemptions = 0;
  double busy_s = 0;             // time the replica spent in iterations
  double first_arrival_s = 0, last_end_s = 0;
  double mean_batch = 0;         // sequences per iteration
  double max_kv_utilization = 0;  // peak share of KV blocks in use
  KvCapacity kv;
  std::int64_t output_tokens() const;
  double output_tokens_per_s() const;  // output tokens / (last end - first arrival)
  double requests_per_s() const;
};

// Throws std::invalid_argument for a request the cache cannot hold even alone, or impossible settings.
// after_each(done, total), when given, hears each request that finishes (for a progress line).
LlmServingResult simulate_llm_serving(LlmReplicaCost& cost, const LlmEngineConfig& engine, const LlmLoad& load,
                                      const std::function<void(std::size_t, std::size_t)>& after_each = {});

// The serve contract's common summary (latency = end - arrival, queue = arrival to first scheduled,
// throughput in requests/s, utilization = time in iterations / span) of `replicas` replicas that each
// served this result's load; analysis/serve_report.h's serve_metrics prints it. offline_latency_s is left
// 0: it needs a run of one request alone.
ServingSummary summarize_llm_serving(const LlmServingResult& result, int replicas, bool offline);

}  // namespace hpcsim

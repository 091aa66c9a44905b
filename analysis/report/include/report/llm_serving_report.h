#pragma once
// An LLM serving run as metrics (the serve JSON's LLM keys): ttft_s.{mean,p50,p99}, tpot_s.{mean,p50,p99}
// (over requests with more than one output token), output_tokens_per_s, requests_per_s,
// kv_cache_bytes_per_gpu, and the engine's own counts (iterations, preemptions, mean batch).
#include <vector>

#include "store/metric.h"
#include "workloads/serving/llm/llm_serving.h"

namespace hpcsim {

// `replicas` identical replicas each served this result's requests: rates are multiplied by it.
std::vector<Metric> llm_serving_metrics(const LlmServingResult& result, int replicas = 1);

}  // namespace hpcsim

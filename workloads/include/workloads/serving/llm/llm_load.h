#pragma once
// One LLM replica's requests from a serve scenario's `serving:` section (the queue part's ServingConfig
// and its arrival generators): round-robin balancing sends request i to replica i mod R, so each
// identical replica can be simulated alone on its share and the replicas' rates add up.
#include <cstdint>

#include "workloads/serving/llm/llm_serving.h"
#include "workloads/serving/serving_config.h"

namespace hpcsim {

// Open loop: replica `replica`'s share of generate_arrivals(serving), each with the workload's lengths
// unless the trace gives its own. Closed loop: concurrency / replicas clients sending requests / replicas
// requests. Throws std::invalid_argument when the concurrency does not divide over the replicas or the
// lengths are missing.
LlmLoad llm_replica_load(const ServingConfig& serving, std::int64_t input_len, std::int64_t output_len, int replica = 0);

}  // namespace hpcsim

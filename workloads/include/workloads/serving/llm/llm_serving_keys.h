#pragma once
// The LLM keys of a serve scenario's `serving:` section (the queue part's parse_serving owns the section
// and its other keys): the engine's batching and KV-cache options, the KV cache's precision and the
// closed-loop concurrency. Each key is optional; its default is the one LlmEngineConfig documents.
#include <optional>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "models/gpu/precision.h"
#include "workloads/serving/llm/llm_engine_config.h"

namespace hpcsim {

struct LlmServingKeys {
  LlmEngineConfig engine;
  std::optional<Precision> kv_cache_dtype;  // unset: the model's precision (between GEMMs: bf16 under fp8)
  std::optional<int> concurrency;           // closed-loop clients instead of open-loop arrivals
};

// The key names, for a schema that lists the serving section's keys.
const std::vector<std::string>& llm_serving_key_names();

// Reads the keys above from `serving` (other keys are left to the section's own parser). A wrong type or
// an impossible value is a ConfigError at its file:line:column.
LlmServingKeys parse_llm_serving_keys(const ConfigNode& serving);

}  // namespace hpcsim

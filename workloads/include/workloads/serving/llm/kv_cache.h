#pragma once
// How much KV cache one GPU of a replica holds: its memory under the engine's rule, less the weights it
// keeps and the activation reserve of a full iteration, in whole blocks.
#include <cstdint>

#include "workloads/serving/llm/llm_engine_config.h"
#include "workloads/serving/llm/llm_replica_cost.h"

namespace hpcsim {

struct KvCapacity {
  double bytes_per_gpu = 0;           // the cache's share of one GPU's memory (whole blocks)
  double bytes_per_token_per_gpu = 0;
  std::int64_t blocks = 0;            // per replica (every GPU holds its heads' share of each block)
  std::int64_t tokens() const;        // blocks x tokens per block
  std::int64_t block_tokens = 16;
};

// Throws std::invalid_argument naming the sizes when the weights and the reserve leave no room for one
// block.
KvCapacity kv_capacity(const LlmReplicaCost& cost, const LlmEngineConfig& engine);

}  // namespace hpcsim

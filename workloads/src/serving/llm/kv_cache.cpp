#include "workloads/serving/llm/kv_cache.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace hpcsim {

std::int64_t KvCapacity::tokens() const { return blocks * block_tokens; }

KvCapacity kv_capacity(const LlmReplicaCost& cost, const LlmEngineConfig& engine) {
  const double memory = cost.gpu().memory_bytes();
  const double weights = cost.weight_bytes_per_gpu();
  const double reserve = cost.activation_bytes_per_gpu(engine.max_num_batched_tokens, engine.max_num_seqs);
  const double free_bytes = engine.kv_cache_free_gpu_mem_fraction > 0
                                ? engine.kv_cache_free_gpu_mem_fraction * (memory - weights - reserve)
                                : engine.gpu_memory_utilization * memory - weights - reserve;
  KvCapacity c;
  c.block_tokens = engine.kv_block_tokens;
  c.bytes_per_token_per_gpu = cost.kv_bytes_per_token_per_gpu();
  const double block_bytes = c.bytes_per_token_per_gpu * static_cast<double>(engine.kv_block_tokens);
  c.blocks = free_bytes > 0 ? static_cast<std::int64_t>(std::floor(free_bytes / block_bytes)) : 0;
  if (c.blocks < 1) {
    std::ostringstream msg;
    msg.precision(3);
    msg << "no room for a KV cache on " << cost.gpu().name << " with tp " << cost.tp() << ": "
        << memory / 1073741824.0 << " GiB per GPU, weights " << weights / 1073741824.0 << " GiB, activation reserve "
        << reserve / 1073741824.0 << " GiB";
    throw std::invalid_argument(msg.str());
  }
  c.bytes_per_gpu = static_cast<double>(c.blocks) * block_bytes;
  return c;
}

}  // namespace hpcsim

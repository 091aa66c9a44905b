#pragma once
// How one LLM serving replica schedules its iterations (vLLM's and TensorRT-LLM's engine options).
#include <cstdint>
#include <string_view>

namespace hpcsim {

// When KV-cache blocks are taken. max_utilization (vLLM; TensorRT-LLM's MAX_UTILIZATION): blocks are
// allocated as tokens are computed and a running sequence is preempted (its cache freed, recomputed later)
// when a decode finds none free. guaranteed_no_evict (TensorRT-LLM's default capacity scheduler): a
// request is admitted only when blocks for its whole prompt and output are free, so nothing is preempted.
enum class KvAdmission { max_utilization, guaranteed_no_evict };
std::string_view to_string(KvAdmission a);

struct LlmEngineConfig {
  // Tokens one iteration may process over all its sequences (vLLM max_num_batched_tokens, TensorRT-LLM
  // max_num_tokens; 8192 is TensorRT-LLM's default).
  std::int64_t max_num_batched_tokens = 8192;
  // Sequences one iteration may hold (vLLM max_num_seqs, default 256; TensorRT-LLM max_batch_size).
  std::int64_t max_num_seqs = 256;
  // A prompt longer than what is left of the token budget is split over iterations (chunked prefill);
  // without it a prompt waits until it fits in one iteration whole.
  bool chunked_prefill = true;
  // Tokens per KV-cache block (vLLM block_size 16; TensorRT-LLM tokens_per_block 32 or 64).
  std::int64_t kv_block_tokens = 16;
  // Share of GPU memory the engine may use for weights, activations and KV cache (vLLM
  // gpu_memory_utilization 0.9; TensorRT-LLM takes kv_cache_free_gpu_mem_fraction of what is left).
  double gpu_memory_utilization = 0.9;
  // TensorRT-LLM's rule instead, when > 0: this fraction of the memory left free after the weights and
  // the activation reserve goes to the KV cache (kv_cache_free_gpu_mem_fraction, default 0.9).
  double kv_cache_free_gpu_mem_fraction = 0;
  KvAdmission admission = KvAdmission::max_utilization;
};

}  // namespace hpcsim

#pragma once
// The time of one engine iteration of an LLM serving replica (tp GPUs of one node running a decoder-only
// zoo model) and the memory it holds per GPU. The layers' own kernels (GEMMs through the GPU op kernels)
// are timed at the iteration's token count, so weights are read once per iteration and small decode
// batches come out memory-bound; attention reads each sequence's KV cache; the row-parallel layers'
// all-reduces run on the node's NVLink/NVSwitch through the collectives runner.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/precision.h"
#include "models/platform/cluster_config.h"
#include "workloads/layers/network.h"

namespace hpcsim {

struct InferenceSetup;

// What one iteration processes: new tokens of every scheduled sequence, split into decode sequences (one
// token each) and prefill chunks, with the attention each does over its cache.
struct IterationWork {
  std::int64_t tokens = 0;           // new tokens over all sequences (the GEMMs' M)
  std::int64_t emitting = 0;         // sequences that produce an output token (the LM head's rows)
  std::int64_t decode_sequences = 0;
  double decode_cache_tokens = 0;    // keys the decode sequences attend to, summed
  std::int64_t prefill_sequences = 0;
  double prefill_tokens = 0;
  double prefill_cache_tokens = 0;   // earlier chunks plus this chunk, summed
  double prefill_score_pairs = 0;    // causal (query, key) pairs of the chunks
};

class LlmReplicaCost {
 public:
  // `model` must be a decoder-only transformer of the zoo (token embedding, blocks with attention and
  // residual additions, a final norm and an output layer). `kv_precision` is how the KV cache is stored.
  // Throws std::invalid_argument when tp exceeds the cluster's GPUs or the model has no attention.
  LlmReplicaCost(const Model& model, const ClusterConfig& cluster, int tp, Precision precision,
                 Precision kv_precision);
  ~LlmReplicaCost();
  LlmReplicaCost(LlmReplicaCost&&) noexcept;

  // Seconds of one iteration (memoized by token count for the dense part).
  double iteration_s(const IterationWork& work);

  const GpuSpec& gpu() const;
  int tp() const;
  double weight_bytes_per_gpu() const;
  double kv_bytes_per_token_per_gpu() const;
  // Activation memory an iteration of `tokens` tokens and `sequences` output rows needs at its peak (the
  // largest layer's input plus output, and fp32 logits), per GPU: what vLLM's profiling run reserves.
  double activation_bytes_per_gpu(std::int64_t tokens, std::int64_t sequences) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The replica a serve scenario describes (workloads/inference/inference_setup.h: cluster.node, the
// model, workload.precision, parallelism.tp) with its KV cache in `kv_precision`. Throws
// std::invalid_argument for a CPU node or a replica over several nodes (one node's NVLink domain only).
LlmReplicaCost llm_replica_cost(const InferenceSetup& setup, Precision kv_precision);

}  // namespace hpcsim

#pragma once
// Scaled dot-product attention, forward. Unfused: Q K^T, softmax, P V as separate kernels with the score
// matrix through HBM. Fused (flash-attention style): one kernel streaming K and V tiles past each block of
// queries, scores kept on chip.
#include <cstdint>
#include <vector>

#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

struct AttentionShape {
  std::int64_t batch = 1, heads = 1, seq = 1, head_dim = 64;
  bool causal = false;
  Precision precision = Precision::bf16;
};

std::vector<Kernel> attention(const GpuSpec& gpu, const AttentionShape& shape, bool fused);

// Attention of new query tokens against a key/value cache (LLM serving: a decode step's one token per
// sequence, or a chunk of a prompt after the chunks before it), as paged/flash-decoding kernels run it:
// one CTA per sequence and key/value head, its query heads (grouped-query attention) sharing the K and V
// tiles it streams, and the keys split over more CTAs when there are too few to fill the GPU.
struct CachedAttentionShape {
  std::int64_t sequences = 1;
  double query_tokens = 1;   // new tokens over all sequences
  double cache_tokens = 1;   // keys each sequence attends to (its cache plus its new tokens), summed
  double score_pairs = 1;    // (query, key) pairs the causal mask keeps, summed over sequences
  std::int64_t heads = 1, kv_heads = 1, head_dim = 128;
  Precision precision = Precision::bf16;     // queries, outputs and the math
  Precision kv_precision = Precision::bf16;  // how the cache is stored (fp8 halves its bytes)
};
Kernel cached_attention(const GpuSpec& gpu, const CachedAttentionShape& shape);

// The fused (flash-attention 2 style) backward: one kernel per block of keys streaming the queries, which
// recomputes the scores and forms dV, dP, dQ and dK on chip (five products where the forward has two);
// dQ is accumulated in fp32 through L2 by every key block.
Kernel attention_backward_fused(const GpuSpec& gpu, const AttentionShape& shape);

}  // namespace hpcsim

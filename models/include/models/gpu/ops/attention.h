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

// The fused (flash-attention 2 style) backward: one kernel per block of keys streaming the queries, which
// recomputes the scores and forms dV, dP, dQ and dK on chip (five products where the forward has two);
// dQ is accumulated in fp32 through L2 by every key block.
Kernel attention_backward_fused(const GpuSpec& gpu, const AttentionShape& shape);

}  // namespace hpcsim

#pragma once
// Embedding lookups: a gather of `lookups` rows of `dim` values from a [vocab, dim] table (forward) and the
// scatter-add of their gradients into the table with atomics in L2 (backward).
#include <cstdint>
#include <vector>

#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

struct EmbeddingShape {
  std::int64_t lookups = 1, dim = 1, vocab = 1;
  Precision precision = Precision::fp32;
};

std::vector<Kernel> embedding_gather(const EmbeddingShape& shape);
std::vector<Kernel> embedding_scatter_add(const EmbeddingShape& shape);

}  // namespace hpcsim

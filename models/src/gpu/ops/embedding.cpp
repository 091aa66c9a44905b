#include "models/gpu/ops/embedding.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim {

namespace {

void check(const EmbeddingShape& s) {
  if (s.lookups < 1 || s.dim < 1 || s.vocab < 1) throw std::invalid_argument("embedding sizes must be at least 1");
}

}  // namespace

std::vector<Kernel> embedding_gather(const EmbeddingShape& s) {
  check(s);
  const double e = bytes_per_element(s.precision);
  const double rows = static_cast<double>(s.lookups), dim = static_cast<double>(s.dim);
  // Rows repeat when lookups exceed the vocabulary; only distinct rows come from HBM.
  const double distinct = std::min(rows, static_cast<double>(s.vocab)) / rows;
  return {elementwise_kernel("embedding_gather", rows * dim, 0,
                             {{e, false, distinct}, {8 / dim, false}, {e, true}})};
}

std::vector<Kernel> embedding_scatter_add(const EmbeddingShape& s) {
  check(s);
  const double e = bytes_per_element(s.precision);
  const double rows = static_cast<double>(s.lookups), dim = static_cast<double>(s.dim);
  const double distinct = std::min(rows, static_cast<double>(s.vocab)) / rows;
  // Atomic adds run in L2: each gradient row is read, and its table row read and written there; HBM
  // sees each distinct table row once each way.
  Kernel k = elementwise_kernel("embedding_scatter_add", rows * dim, 1,
                                {{e, false}, {8 / dim, false}, {e, false, distinct}, {e, true, distinct}});
  return {k};
}

}  // namespace hpcsim

#pragma once
// Memory-bound ops: copies, elementwise chains (one kernel per op, or fused into one) and row reductions.
#include <cstdint>
#include <vector>

#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

// Device-to-device copy of `bytes` (read once, written once).
std::vector<Kernel> copy_op(double bytes);

// `ops` elementwise ops on tensors of `elements` values, each reading `inputs` tensors (the first being
// the previous op's result) and writing one; unfused: one kernel per op with intermediates through HBM;
// fused: one kernel reading the chain's external inputs once and writing the last result.
struct ElementwiseChain {
  double elements = 0;
  int ops = 1;
  int inputs = 1;  // per op
  double flops_per_op = 1;
  Precision precision = Precision::fp32;  // storage precision of the tensors
  bool fused = false;
};
std::vector<Kernel> elementwise_chain(const ElementwiseChain& chain);

// Sum of each of `rows` rows of `cols` values (one block per row, a tree in shared memory).
std::vector<Kernel> row_reduction(std::int64_t rows, std::int64_t cols, Precision precision);

}  // namespace hpcsim

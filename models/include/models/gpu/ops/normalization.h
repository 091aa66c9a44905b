#pragma once
// Softmax, layer norm and batch norm: row- or channel-wise reductions followed by an elementwise pass.
#include <cstdint>
#include <vector>

#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

// Softmax over the last dimension of a [rows, cols] tensor. A row that fits on chip is read once; a longer
// one is read again for each of the max, sum and normalize passes (the re-reads hit L2).
std::vector<Kernel> softmax(std::int64_t rows, std::int64_t cols, Precision precision, bool backward = false);

// Layer norm over the last dimension of [rows, cols]; backward adds the gamma/beta gradient reduction.
std::vector<Kernel> layer_norm(std::int64_t rows, std::int64_t cols, Precision precision, bool backward = false);

// Training-mode batch norm of an [n, c, hw] activation: statistics, then normalize (forward); reduction of
// dy and dy*x, then the input gradient (backward).
std::vector<Kernel> batch_norm(std::int64_t n, std::int64_t c, std::int64_t hw, Precision precision,
                               bool backward = false);

}  // namespace hpcsim

#include "models/gpu/ops/normalization.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim {

namespace {

// A row-wise kernel: one block per row, vectorized loads; `streams` are bytes per row element.
Kernel row_kernel(std::string name, std::int64_t rows, std::int64_t cols, double flops_per_element,
                  const std::vector<ElementStream>& streams) {
  if (rows < 1 || cols < 1) throw std::invalid_argument(name + ": rows and cols must be at least 1");
  Kernel k;
  k.name = std::move(name);
  k.launch.blocks = rows;
  k.launch.threads_per_block = static_cast<int>(std::clamp<std::int64_t>(cols / 4, 32, 1024));
  k.launch.registers_per_thread = 40;
  k.launch.smem_per_block = 32 * 8;  // per-warp partial sums for the block reduction
  const double n = static_cast<double>(rows) * static_cast<double>(cols);
  k.work.flops = n * flops_per_element;
  int reads = 0;
  for (const ElementStream& s : streams) {
    k.work.add({n * s.bytes_per_element, n * s.bytes_per_element * s.unique_fraction, 16, 1, s.write});
    reads += s.write ? 0 : 1;
  }
  k.work.requests_in_flight = std::max(1, reads);
  k.work.framework_pointwise = true;
  return k;
}

// Rows longer than this many values are not held on chip between passes (PyTorch's persistent softmax
// handles rows up to 1024 elements; longer rows use the block softmax, which re-reads the input).
constexpr std::int64_t kOnChipRow = 1024;

}  // namespace

std::vector<Kernel> softmax(std::int64_t rows, std::int64_t cols, Precision precision, bool backward) {
  const double e = bytes_per_element(precision);
  if (backward) {  // dx = y * (dy - sum(dy * y))
    return {row_kernel("softmax_backward", rows, cols, 4, {{e, false}, {e, false}, {e, true}})};
  }
  // max, exp-sum and normalize: a long row is read three times, the re-reads from L2.
  const double passes = cols <= kOnChipRow ? 1 : 3;
  return {row_kernel("softmax", rows, cols, 5, {{e * passes, false, 1 / passes}, {e, true}})};
}

std::vector<Kernel> layer_norm(std::int64_t rows, std::int64_t cols, Precision precision, bool backward) {
  const double e = bytes_per_element(precision);
  // gamma and beta are [cols] vectors every row re-reads: 1/rows of their traffic is distinct.
  const double params = 1.0 / static_cast<double>(std::max<std::int64_t>(rows, 1));
  if (!backward) {
    return {row_kernel("layer_norm", rows, cols, 8, {{e, false}, {2 * e, false, params}, {e, true}})};
  }
  // dx from dy, x, gamma and the saved statistics; then dgamma, dbeta as column sums of dy*xhat and dy.
  Kernel dx = row_kernel("layer_norm_backward_input", rows, cols, 12, {{e, false}, {e, false}, {e, false, params}, {e, true}});
  Kernel dparams = row_kernel("layer_norm_backward_params", rows, cols, 4, {{e, false}, {e, false}});
  return {dx, dparams};
}

// Batch norm is cuDNN's (cudnnBatchNormalizationForwardTraining / BackwardEx, which PyTorch, TensorFlow
// and MXNet call on the GPU): library kernels stream at the measured bandwidth.
static std::vector<Kernel> library_kernels(std::vector<Kernel> kernels) {
  for (Kernel& k : kernels) k.work.framework_pointwise = false;
  return kernels;
}

std::vector<Kernel> batch_norm(std::int64_t n, std::int64_t c, std::int64_t hw, Precision precision, bool backward) {
  if (n < 1 || c < 1 || hw < 1) throw std::invalid_argument("batch norm sizes must be at least 1");
  const double e = bytes_per_element(precision);
  const double elements = static_cast<double>(n) * static_cast<double>(c) * static_cast<double>(hw);
  // Per-channel reductions over n*hw values: one block per channel reading its strided planes.
  const std::int64_t per_channel = n * hw;
  if (!backward) {
    Kernel stats = row_kernel("batch_norm_stats", c, per_channel, 3, {{e, false}});
    Kernel apply = elementwise_kernel("batch_norm_apply", elements, 4, {{e, false}, {e, true}});
    return library_kernels({stats, apply});
  }
  Kernel reduce = row_kernel("batch_norm_backward_reduce", c, per_channel, 4, {{e, false}, {e, false}});
  Kernel dx = elementwise_kernel("batch_norm_backward_input", elements, 8, {{e, false}, {e, false}, {e, true}});
  return library_kernels({reduce, dx});
}

}  // namespace hpcsim

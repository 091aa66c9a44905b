#pragma once
// 2-D convolution as implicit GEMM (cuDNN/CUTLASS): forward, backward-data and backward-weight passes map
// to GEMMs over the im2col view, reading the real tensors (not the unfolded matrix) from HBM.
#include <cstdint>

#include "models/gpu/ops/gemm.h"

namespace hpcsim {

enum class ConvPass { forward, backward_data, backward_weight };

struct ConvShape {
  std::int64_t n = 1, c = 1, h = 1, w = 1;  // input batch, channels, height, width
  std::int64_t k = 1, r = 1, s = 1;         // output channels, filter height, width
  int stride = 1, pad = 0;
  Precision precision = Precision::bf16;
  std::int64_t out_h() const { return (h + 2 * pad - r) / stride + 1; }
  std::int64_t out_w() const { return (w + 2 * pad - s) / stride + 1; }
};

// Throws std::invalid_argument when the filter does not fit the padded input.
Kernel conv2d(const GpuSpec& gpu, const ConvShape& shape, ConvPass pass);

}  // namespace hpcsim

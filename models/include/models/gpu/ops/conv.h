#pragma once
// 2-D convolution as implicit GEMM (cuDNN/CUTLASS): forward, backward-data and backward-weight passes map
// to GEMMs over the im2col view, reading the real tensors (not the unfolded matrix) from HBM.
#include <cstdint>
#include <vector>

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

// The forward pass run by a kernel (tile and split-K) chosen for `tuned_batch` images, as an engine built
// once for one batch size runs every batch: TensorRT selects "the kernels that result in the lowest runtime
// for the optimum input tensor dimensions" of its optimization profile (IOptimizationProfile, TensorRT API).
// conv2d chooses for the batch that runs (cuDNN's heuristics and autotuner pick per shape).
Kernel conv2d_tuned_for(const GpuSpec& gpu, const ConvShape& shape, std::int64_t tuned_batch);

// Winograd F(4x4, 3x3) as cuDNN's WINOGRAD_NONFUSED runs it (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", CVPR 2016): the input (or, for backward data, the output gradient) is cut
// into 6x6 tiles overlapping by 2 and transformed, 36 batched GEMMs of [tiles, C] x [C, K] multiply them by
// the transformed filter, and an output transform writes 4x4 pixels per tile: 2.25 multiply-adds per
// output instead of 9. Empty unless the shape is a stride-1 3x3 convolution and the pass is forward or
// backward data.
std::vector<Kernel> conv2d_winograd(const GpuSpec& gpu, const ConvShape& shape, ConvPass pass);

// The algorithm cuDNN's autotuner (cudnn.benchmark, TensorFlow's autotune, MXNet's cudnn_tune) settles
// on: the faster of implicit GEMM and, on the vector unit (no tensor cores for the precision), Winograd.
// cuDNN's tensor-core convolutions are implicit GEMMs, so tensor-core precisions keep implicit GEMM.
std::vector<Kernel> conv2d_fastest(const GpuSpec& gpu, const ConvShape& shape, ConvPass pass);

}  // namespace hpcsim

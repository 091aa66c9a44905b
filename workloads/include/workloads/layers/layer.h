#pragma once
// The one layer interface. A layer holds only its own configuration; the shapes of its inputs come with
// every call, so one layer object serves any input it accepts (Keras-style inference of input sizes).
#include <cstdint>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/precision.h"
#include "workloads/layers/shape.h"

namespace hpcsim {

// The kernels one layer launches in a training step, through GPU model I's op kernels.
struct LayerKernels {
  std::vector<Kernel> forward, backward_data, backward_weight;
};

// What a cost question is about: `batch` samples with tensors stored in `precision`.
struct LayerRun {
  std::int64_t batch = 1;
  Precision precision = Precision::bf16;
};

class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string type() const = 0;
  // Throws ShapeError when the inputs do not fit this layer.
  virtual Shape output_shape(const Shapes& in) const = 0;
  // Trainable parameters (batch-norm running statistics are buffers, not parameters).
  virtual std::int64_t params(const Shapes& in) const { (void)in; return 0; }
  // Forward FLOPs: 2 per multiply-add of a matrix product, 1 per elementwise operation.
  virtual double forward_flops(const Shapes& in, const LayerRun& run) const = 0;
  // Bytes of forward results this layer keeps until its backward pass.
  virtual double activation_bytes(const Shapes& in, const LayerRun& run) const = 0;
  virtual LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const = 0;
};

}  // namespace hpcsim

#pragma once
// Layers that only move data: concatenation, flattening, taking a sequence's first position or some of
// its positions.
#include "workloads/layers/layer.h"

namespace hpcsim {

// Concatenates along `axis` (0: channels of an image, or the last axis with -1); other dims must match.
class Concat : public Layer {
 public:
  explicit Concat(int axis = 0) : axis_(axis) {}
  std::string type() const override { return "concat"; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  int axis_;
};

// [d0, d1, ...] -> [d0*d1*...]; a view, no kernels.
class Flatten : public Layer {
 public:
  std::string type() const override { return "flatten"; }
  LayerTraits traits() const override { return {.view = true}; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

// [steps, dim] -> [dim]: the first position (BERT's [CLS] token, fed to the pooler).
class FirstToken : public Layer {
 public:
  std::string type() const override { return "first_token"; }
  LayerTraits traits() const override { return {.view = true}; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
};

// [steps, dim] -> [count, dim]: the rows at `count` positions of each sample. BERT pretraining computes
// the masked-LM head on the masked tokens only (gather_indexes in Devlin et al.'s run_pretraining.py,
// dense_seq_output in NVIDIA DLE's). Backward scatters the gradient into a zeroed [steps, dim].
class GatherPositions : public Layer {
 public:
  explicit GatherPositions(std::int64_t count);  // count >= 1
  std::string type() const override { return "gather_positions"; }
  Shape output_shape(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  std::int64_t count_;
};

}  // namespace hpcsim

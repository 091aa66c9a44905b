#pragma once
// Fully connected layer over the last dimension ([..., in] -> [..., units]), and embedding lookups.
#include "workloads/layers/layer.h"

namespace hpcsim {

class Linear : public Layer {
 public:
  // tied: the weight is an embedding table counted there (GPT's output layer); only a bias is its own.
  // split: Megatron's column (outputs sharded) or row (inputs sharded, output all-reduced) parallelism.
  explicit Linear(std::int64_t units, bool bias = true, bool tied = false, TensorSplit split = TensorSplit::none);
  std::string type() const override { return "dense"; }
  LayerTraits traits() const override {
    return {.fp8_gemms = true, .keeps_input = true, .cpu_op_class = CpuOpClass::gemm};
  }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  std::int64_t weights_read(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
  TensorSplit tensor_split() const override { return split_; }
  std::int64_t params_per_rank(const Shapes& in, int tp) const override;
  TensorParallelTraffic tp_traffic(const Shapes& in, const LayerRun& run) const override;

 private:
  std::int64_t units_;
  bool bias_, tied_;
  TensorSplit split_;
  std::int64_t local_units(int tp) const;
};

// Token ids [steps] -> vectors [steps, dim] from a [vocab, dim] table.
class Embedding : public Layer {
 public:
  // tied: the table is another embedding's (a shared source/target vocabulary), counted there.
  Embedding(std::int64_t vocab, std::int64_t dim, bool tied = false);
  std::string type() const override { return "embedding"; }
  LayerTraits traits() const override { return {.gathers_rows = true}; }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
  // Vocabulary-parallel under tp (Megatron): each GPU holds vocab / tp rows; the lookups are all-reduced.
  std::int64_t params_per_rank(const Shapes& in, int tp) const override;
  TensorParallelTraffic tp_traffic(const Shapes& in, const LayerRun& run) const override;

 private:
  std::int64_t vocab_, dim_;
  bool tied_;
};

// Adds a learned [max_positions, dim] table to a [steps, dim] sequence (BERT/GPT-2 positions).
class PositionEmbedding : public Layer {
 public:
  explicit PositionEmbedding(std::int64_t max_positions);
  std::string type() const override { return "position_embedding"; }
  LayerTraits traits() const override { return {.elementwise_forward = true, .gathers_rows = true}; }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  std::int64_t max_positions_;
};

}  // namespace hpcsim

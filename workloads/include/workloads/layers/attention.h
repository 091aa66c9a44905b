#pragma once
// Multi-head attention with its projections, on [steps, dim]: self-attention with one input, cross-
// attention (queries from the first input, keys and values from the second) with two. Grouped-query
// attention shares each key/value head among heads / kv_heads query heads.
#include "workloads/layers/layer.h"

namespace hpcsim {

struct AttentionConfig {
  std::int64_t heads = 1;
  std::int64_t kv_heads = 0;  // 0: as many as heads (plain multi-head)
  std::int64_t head_dim = 0;  // 0: model dim / heads
  bool causal = false;
  bool bias = true;
  // Dropout on the attention probabilities (BERT's attention_probs_dropout_prob, Megatron's
  // --attention-dropout). Unfused attention runs it as its own pass over the [b, heads, s, s] scores and
  // keeps the mask and the dropped probabilities for backward; a fused kernel applies it on chip.
  double dropout = 0;
};

class Attention : public Layer {
 public:
  explicit Attention(AttentionConfig config);
  std::string type() const override { return "attention"; }
  // Framework ops of one forward on CPU: eager, HuggingFace's BertSelfAttention plus BertSelfOutput's
  // projection, call by call (transformers' modeling_bert.py): the q, k and v projections (3);
  // transpose_for_scores, a view and a permute, for each (6); the key's transpose and QK^T (2); the scaling
  // and the mask add (2); softmax and the probabilities' dropout (2); PV (1); the head merge, a permute,
  // contiguous and a view (3); the output projection (1): 20. Compiled (Inductor) the reshapes vanish and the
  // scale, mask and softmax are one kernel: 3 projections, 2 matmuls, 1 fused softmax, 1 projection (7).
  LayerTraits traits() const override {
    return {.self_attention = true, .fp8_gemms = true, .cpu_op_class = CpuOpClass::gemm, .eager_ops = 20, .compiled_ops = 7};
  }
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
  // Megatron: heads (and key/value heads) split over tp GPUs, the QKV projection column-parallel and the
  // output projection row-parallel, so the output is all-reduced forward and the input gradient backward.
  std::int64_t params_per_rank(const Shapes& in, int tp) const override;
  TensorParallelTraffic tp_traffic(const Shapes& in, const LayerRun& run) const override;
  CoreRecompute core_recompute(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;
  // The heads as configured (head_dim and kv_heads may be 0: model dim / heads, and heads).
  const AttentionConfig& config() const { return c_; }

 private:
  struct Dims;
  Dims dims(const Shapes& in, int tp = 1) const;
  AttentionConfig c_;
};

}  // namespace hpcsim

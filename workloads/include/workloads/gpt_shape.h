#pragma once
// Sizes of a GPT-style decoder (pre-LayerNorm, learned positions, tied embedding and output layer):
// exact parameter counts, model FLOPs and activation memory for one micro-batch.
#include <cstdint>

#include "workloads/scenario.h"

namespace hpcsim {

struct GptShape {
  double batch, seq, layers, hidden, heads, ffn, vocab;

  static GptShape of(const WorkloadConfig& w);
  // qkv (3h^2+3h) + out projection (h^2+h) + two MLP matrices (2h*ffn + ffn + h) + two LayerNorms (4h).
  double params_per_layer() const;
  // Token embedding (tied with the output layer) + learned positions + the final LayerNorm.
  double params_outside_layers() const;
  double params() const;
  // Forward FLOPs of one layer for the whole micro-batch: 2 per multiply-add of every matmul, plus
  // the attention score and context products (2 * 2 * b * s^2 * h); elementwise work is not counted.
  double layer_forward_flops() const;
  double logits_forward_flops() const;
  // Model FLOPs of a training step (forward + backward = 3x forward), recomputation not counted.
  double training_flops() const;
  // Activation bytes kept for backward per layer with 16-bit activations and no recomputation,
  // s*b*h*(34 + 5*a*s/h) (Korthikanti et al., "Reducing Activation Recomputation in Large
  // Transformer Models", MLSys 2023, eq. 1); scaled by bytes_per_value/2 for other precisions.
  double layer_activation_bytes(double bytes_per_value) const;
};

}  // namespace hpcsim

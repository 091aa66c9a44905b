#include "workloads/gpt_shape.h"

namespace hpcsim {

GptShape GptShape::of(const WorkloadConfig& w) {
  return GptShape{static_cast<double>(w.batch_per_gpu), static_cast<double>(w.seq_len),
                  static_cast<double>(w.layers),        static_cast<double>(w.hidden),
                  static_cast<double>(w.heads),         static_cast<double>(w.ffn),
                  static_cast<double>(w.vocab)};
}

double GptShape::params_per_layer() const {
  const double h = hidden;
  return 4 * h * h + 2 * h * ffn + 9 * h + ffn;
}

double GptShape::params_outside_layers() const { return vocab * hidden + seq * hidden + 2 * hidden; }

double GptShape::params() const { return layers * params_per_layer() + params_outside_layers(); }

double GptShape::layer_forward_flops() const {
  const double tokens = batch * seq;
  return 2 * tokens * (4 * hidden * hidden + 2 * hidden * ffn) + 4 * batch * seq * seq * hidden;
}

double GptShape::logits_forward_flops() const { return 2 * batch * seq * hidden * vocab; }

double GptShape::training_flops() const { return 3 * (layers * layer_forward_flops() + logits_forward_flops()); }

double GptShape::layer_activation_bytes(double bytes_per_value) const {
  return seq * batch * hidden * (34 + 5 * heads * seq / hidden) * bytes_per_value / 2;
}

}  // namespace hpcsim

#pragma once
// SimpleRNN, LSTM and GRU over [steps, features], stacked and optionally bidirectional. Parameter counts
// follow Keras: one bias vector per gate (LSTM 4u(in+u+1)); GRU with reset_after (two biases per gate,
// 3u(in+u+2)), as Keras 2 defaults and cuDNN computes.
#include "workloads/layers/layer.h"

namespace hpcsim {

enum class CellType { simple, lstm, gru };

struct RecurrentConfig {
  CellType cell = CellType::lstm;
  std::int64_t units = 1;
  int layers = 1;
  bool bidirectional = false;       // directions' outputs are concatenated
  bool return_sequences = false;    // [steps, units*dirs], else the last step [units*dirs]
  // The framework's own cell run one time step at a time (TensorFlow's LSTMCell under tf.nn.dynamic_rnn or
  // dynamic_decode, a tf.while_loop), not a fused library op over the sequence: per step one GEMM over
  // [x_t, h_t-1] and each of the cell's elementwise operations as a kernel of its own, forward and
  // backward, and the weight gradient computed and accumulated in every iteration (TensorFlow 1.x's
  // while-loop gradient accumulators). LSTM only.
  bool stepwise = false;
};

class Recurrent : public Layer {
 public:
  explicit Recurrent(RecurrentConfig config);
  std::string type() const override;
  LayerTraits traits() const override;
  Shape output_shape(const Shapes& in) const override;
  std::int64_t params(const Shapes& in) const override;
  double forward_flops(const Shapes& in, const LayerRun& run) const override;
  double activation_bytes(const Shapes& in, const LayerRun& run) const override;
  LayerKernels kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const override;

 private:
  std::int64_t layer_input(const Shape& in, int layer) const;
  RecurrentConfig c_;
};

}  // namespace hpcsim

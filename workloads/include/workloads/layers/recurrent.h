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
};

class Recurrent : public Layer {
 public:
  explicit Recurrent(RecurrentConfig config);
  std::string type() const override;
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

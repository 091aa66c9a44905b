#pragma once
// One LSTM or GRU layer over a sequence, as cuDNN's standard algorithm runs it (Appleyard et al. 2016,
// arXiv 1604.01946): the input projection for all time steps as one GEMM, then per time step one recurrent
// GEMM over the combined gates and one fused pointwise gate kernel. Training adds, per step, the gate
// gradient and the recurrent data-gradient GEMM, and afterwards the weight-gradient GEMMs and the
// input-gradient GEMM over all steps.
#include <cstdint>
#include <vector>

#include "models/gpu/ops/op_kernel.h"

namespace hpcsim {

enum class RecurrentCell { lstm, gru };

struct RecurrentShape {
  RecurrentCell cell = RecurrentCell::lstm;
  std::int64_t hidden = 1, batch = 1, steps = 1;
  std::int64_t input = 0;  // 0: same as hidden
  Precision precision = Precision::fp16;
  bool train = false;
  // false: CUDNN_SKIP_INPUT, the input is the gates' pre-activation and no input GEMMs run (DeepBench's
  // rnn_bench, whose rules exclude the input projection from a recurrent layer's time).
  bool input_projection = true;
  // false: backward through time only (cudnnRNNBackwardData, what DeepBench's rnn_bench times), no dW.
  bool weight_gradients = true;
};

std::vector<Kernel> recurrent_layer(const GpuSpec& gpu, const RecurrentShape& shape);

}  // namespace hpcsim

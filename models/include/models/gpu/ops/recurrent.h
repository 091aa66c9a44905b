#pragma once
// One LSTM or GRU layer over a sequence, as cuDNN runs it: the input projection for all time steps as one
// GEMM, then per time step the recurrent GEMM and a pointwise gate kernel. Training adds, per step, the
// gate gradient and the recurrent data-gradient GEMM, and afterwards the weight-gradient GEMMs and the
// input-gradient GEMM over all steps (DeepBench's "training" = forward + backward data + backward weights).
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
};

std::vector<Kernel> recurrent_layer(const GpuSpec& gpu, const RecurrentShape& shape);

}  // namespace hpcsim

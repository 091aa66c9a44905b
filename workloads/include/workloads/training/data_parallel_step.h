#pragma once
// One data-parallel training step of a GPT-style model, as an execution graph on the engine: layer
// forward and backward ops on the compute stream; gradients gathered into 25 MB buckets in the order
// backward produces them, each bucket ring-all-reduced over the fabric on the communication stream
// while backward goes on (as PyTorch DDP does); the optimizer after the last bucket.
//
// Foundation model: compute ops take their matmul FLOPs at the GPU spec's achievable matmul rate, and
// the optimizer its memory traffic at the achievable bandwidth. Elementwise kernels, launch overheads
// and data loading are not modelled yet (see docs/validation.md).
#include "workloads/scenario.h"
#include "workloads/training/step_result.h"

namespace hpcsim {

inline constexpr double kGradientBucketBytes = 25e6;

StepResult simulate_data_parallel_step(const Scenario& scenario);

}  // namespace hpcsim

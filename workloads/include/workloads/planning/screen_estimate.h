#pragma once
// A fast analytical estimate of one training step, for screening thousands of capacity-plan candidates
// before the best are simulated in full: a roofline of the step's GEMM FLOPs at the GPU's calibrated matmul
// rate, the 1F1B pipeline bubble, Megatron tensor-parallel all-reduces on the node's GPU links and the
// data-parallel gradient ring on the NICs, and the per-GPU memory of each layout. It leaves out what the
// simulator models (kernel-level costs, overlap, contention, stage imbalance), so it ranks; it does not report.
#include <cstdint>

#include "models/gpu/gpu_spec.h"
#include "models/network/network_spec.h"
#include "models/node/node_spec.h"
#include "workloads/scenario/training_scenario.h"

namespace hpcsim {

// What the estimate needs of the model at one micro batch, computed once per micro batch.
struct ModelFootprint {
  double params = 0;
  double forward_flops = 0;      // one micro batch through the whole model
  double activation_bytes = 0;   // kept for backward, one micro batch, whole model, no checkpointing
  int blocks = 1;                // transformer blocks (attention layers); 1 for other models
};

ModelFootprint model_footprint(const WorkloadConfig& workload, std::int64_t micro_batch);

struct ScreenLayout {
  int nodes = 1, tp = 1, pp = 1, dp = 1, zero = 0;
  std::int64_t micro_batch = 1;
  int microbatches = 1;
};

struct ScreenEstimate {
  double step_s = 0;
  double compute_s = 0, bubble_s = 0, tensor_parallel_s = 0, data_parallel_s = 0;  // data_parallel: exposed
  double memory_per_gpu_bytes = 0;
  bool fits_in_memory = true;
  double gpu_activity = 0;  // compute share of the step, for the power model
  double io_stall_s = 0;    // the input pipeline's wait beyond the step (capacity_plan adds it with a dataset)
};

ScreenEstimate screen_estimate(const ModelFootprint& model, const WorkloadConfig& workload, const NodeSpec& node,
                               const NetworkSpec& network, const ScreenLayout& layout);

}  // namespace hpcsim

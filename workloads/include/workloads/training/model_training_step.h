#pragma once
// One data-parallel training step of any zoo Model, as an execution graph on the engine:
//  - compute stream: every layer's forward kernels in network order (the loss layer last), then each
//    layer's backward-data and backward-weight kernels in reverse, then the optimizer kernels; each op is
//    one layer phase timed by the GPU kernel model (estimate_op over the layer's kernels);
//  - communication stream: gradients gathered into 25 MB buckets in the order backward produces them,
//    each all-reduced over the first `dp` GPUs of the cluster fabric through the collectives runner as
//    soon as its last layer's backward-weight ends, so it overlaps the rest of backward (PyTorch DDP).
// Not modelled yet: data loading, launch gaps between kernels, compile-mode fusion, GAN d_steps (a
// multi-network model runs every network forward then backward once), gradient accumulation.
#include <cstdint>

#include "models/gpu/ops/optimizer.h"
#include "models/gpu/precision.h"
#include "workloads/layers/network.h"
#include "workloads/scenario.h"
#include "workloads/training/step_result.h"
#include "workloads/training/training_memory.h"

namespace hpcsim {

struct DataParallelRun {
  std::int64_t batch_per_gpu = 1;
  int dp = 0;  // data-parallel ranks: the first dp GPUs, node-major; 0 = every GPU of the cluster
  Precision precision = Precision::bf16;
  OptimizerKind optimizer = OptimizerKind::adamw;
  OptimizerImpl optimizer_impl = OptimizerImpl::fused;
  double bucket_bytes = 25e6;  // DDP's bucket_cap_mb default
};

struct ModelStepReport {
  StepResult result;        // memory_per_gpu_bytes == memory.total()
  TrainingMemory memory;
  double allreduce_time_s = 0;  // summed all-reduce durations, exposed or hidden
  int gradient_buckets = 0;     // all-reduces issued (0 on one GPU)
  double model_flops = 0;       // per GPU per step: 3 x forward FLOPs (backward counted as twice forward)
};

// std::invalid_argument for a batch below 1 or dp outside 1..cluster GPUs.
ModelStepReport simulate_model_training_step(const Model& model, const ClusterConfig& cluster,
                                             const DataParallelRun& run);

}  // namespace hpcsim

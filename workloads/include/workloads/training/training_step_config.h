#pragma once
// How a model is trained on a cluster: batch, precision, optimizer and the parallel layout (GPUs numbered
// as parallel_layout.h says, node-major on the cluster).
#include <cstdint>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/fp8_cast.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/ops/optimizer.h"
#include "models/gpu/precision.h"
#include "workloads/layers/layer.h"
#include "workloads/training/compile_fusion.h"
#include "workloads/training/gan_recipe.h"
#include "workloads/training/kernel_issue.h"
#include "workloads/training/parallel_layout.h"
#include "workloads/training/pipeline_schedule.h"
#include "workloads/training/recompute.h"

namespace hpcsim {

struct TrainingStepConfig {
  std::int64_t micro_batch = 1;  // samples per forward/backward pass of one replica
  int microbatches = 1;          // passes per optimizer step (pipeline microbatches or accumulation)
  ParallelLayout layout{.dp = 0};  // dp 0: every GPU left over by tp x pp x cp
  int zero = 0;                  // ZeRO stage 0-3 over the data-parallel group
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  Precision precision = Precision::bf16;
  OptimizerKind optimizer = OptimizerKind::adamw;
  OptimizerImpl optimizer_impl = OptimizerImpl::fused;
  Recompute recompute = Recompute::none;  // what backward recomputes (recompute.h)
  // Megatron's sequence parallelism (Korthikanti et al. 2022, section 4.2.2), with tp > 1: layers outside
  // the tensor-parallel blocks (norms, dropout, residual adds) run on 1/tp of the tokens each, and
  // tensor-parallel layers keep only their rank's 1/tp of the input they all-gather.
  bool sequence_parallel = false;
  // Megatron-Core's --tp-comm-overlap (Transformer Engine userbuffers), with sequence parallelism: each
  // tensor-parallel all-gather and reduce-scatter is cut into tp chunks pipelined with the chunks of the
  // GEMMs it feeds or drains, the communication kernels holding a few SMs meanwhile (tp_comm_overlap.h).
  bool tp_comm_overlap = false;
  double bucket_bytes = 25e6;             // DDP's bucket_cap_mb default
  int d_steps = 1;                        // GAN: discriminator updates per generator update
  GanRecipe gan;                          // GAN: regularization, per-block precision, augmentation, EMA
  // The framework's execution: host dispatch per kernel, CUDA graphs, and what compile mode fuses.
  IssueMode issue;                        // default: no dispatch cost (GPU time only)
  FusionScope fusion = FusionScope::none;
  bool channels_last = true;            // image tensors NHWC (else NCHW: tensor-core convolutions transpose)
  bool overlap_gradient_reduce = true;  // DDP buckets during backward; false: one reduce after backward
  bool overlap_param_gather = false;    // ZeRO-1/2: gather parameters bucket by bucket in the next forward
  bool flash_attention = true;          // fused attention kernels where the precision allows
  bool linear_bias_epilogue = true;     // dense-layer biases added in the GEMM epilogue, not by a pass
  std::int64_t tuned_batch = 0;         // > 0: kernels chosen for this batch run every batch (LayerRun)
  Fp8Scaling fp8_scaling = Fp8Scaling::delayed;  // Transformer Engine's fp8 recipe (LayerRun::fp8_scaling)
  bool record_timeline = false;  // fill TrainingStepReport::timeline
  // Simulate every data-parallel group and replica in full; false lets groups and replicas that the
  // fabric's symmetry makes equivalent run as one representative per class (same answer, see
  // docs/validation.md, "Symmetry classes").
  bool exact = false;
};

}  // namespace hpcsim

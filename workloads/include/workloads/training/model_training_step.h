#pragma once
// One training step of any zoo Model on a cluster, as an execution graph on the engine.
//
// The layers are cut into pp x vp contiguous virtual stages balanced by time. Each pipeline stage has a
// compute stream running its forward and backward passes in the schedule's order (gpipe, 1f1b,
// interleaved); a pass is timed by the GPU kernel model over its layers' kernels, and is followed by the
// blocking tensor-parallel all-reduces of its layers (Megatron column/row splits) on the same stream.
// Activations move between stages as point-to-point transfers over the fabric route. After a stage's last
// backward its gradients are all-reduced over its data-parallel group through the collectives runner
// (reduce-scattered, then parameters all-gathered after the update, under ZeRO); with one stage, the last
// backward is cut at 25 MB gradient buckets that are reduced while backward goes on (PyTorch DDP). ZeRO-3
// all-gathers each unit's parameters before its forward and backward and reduce-scatters its gradients.
// The optimizer runs per stage when its gradients are reduced.
//
// One data-parallel replica's pipeline (tp rank 0, cp rank 0) is simulated: every replica runs the same
// timeline. A stage's gradient reduction runs the groups of all its tp ranks (each over dp x cp GPUs) at
// once on the live fabric, sharing NICs and PCIe links; compute overlapping a collective runs on the SMs
// NCCL leaves (node spec collective_sms) for as long as they overlap. Tensor-parallel all-reduces and point-to-point transfers are timed
// on an otherwise idle fabric (they stay inside a node or use a stage pair's own links).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/gpu/ops/optimizer.h"
#include "models/gpu/precision.h"
#include "workloads/layers/network.h"
#include "workloads/scenario.h"
#include "workloads/training/input_pipeline.h"
#include "workloads/training/step_result.h"
#include "workloads/training/training_memory.h"
#include "workloads/training/training_run.h"

namespace hpcsim {

struct DataParallelRun {
  std::int64_t batch_per_gpu = 1;
  int dp = 0;  // data-parallel ranks: the first dp GPUs, node-major; 0 = every GPU of the cluster
  Precision precision = Precision::bf16;
  OptimizerKind optimizer = OptimizerKind::adamw;
  OptimizerImpl optimizer_impl = OptimizerImpl::fused;
  double bucket_bytes = 25e6;  // DDP's bucket_cap_mb default
};

// One op of the simulated step, for a timeline (--trace).
struct TimelineOp {
  std::string name;    // e.g. "fwd.stage3.mb0", "grad_bucket.2", "optimizer.stage0"
  std::string lane;    // "stage 3 compute", "stage 3 data-parallel", "p2p 3->4 forward", ...
  std::string category;  // compute, communication, optimizer
  double start_s = 0, end_s = 0;
};

struct ModelStepReport {
  StepResult result;        // memory_per_gpu_bytes == memory.total()
  TrainingMemory memory;    // of the GPU that needs the most
  double allreduce_time_s = 0;  // summed data-parallel collective durations, exposed or hidden
  int gradient_buckets = 0;     // data-parallel gradient collectives issued per step
  double model_flops = 0;       // per GPU per step: 3 x forward FLOPs (backward counted as twice forward)
  double hardware_flops = 0;    // per GPU per step, recomputed forwards included
  double pipeline_bubble_fraction = 0;  // idle share of the pipeline phase, averaged over stages
  int stages = 1;
  std::optional<InputPipelineResult> input;  // when the scenario reads a dataset
  std::vector<TimelineOp> timeline;          // filled when TrainingRun::record_timeline
};

// std::invalid_argument for a batch below 1, degrees below 1, more GPUs than the cluster has, fewer
// layers than virtual stages, tensor parallelism on a model without tensor-parallel layers.
ModelStepReport simulate_training_step(const Model& model, const ClusterConfig& cluster, const TrainingRun& run);

// The memory of the GPU that needs the most, as simulate_training_step reports it, from the layer costs and
// the stage cut alone: nothing is simulated. Throws as simulate_training_step does.
TrainingMemory training_step_memory(const Model& model, const ClusterConfig& cluster, const TrainingRun& run);

// Plain data parallelism (the first dp GPUs, one pass per step).
ModelStepReport simulate_model_training_step(const Model& model, const ClusterConfig& cluster,
                                             const DataParallelRun& run);

}  // namespace hpcsim

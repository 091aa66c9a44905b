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
#include <cstddef>
#include <functional>

#include "models/platform/cluster_config.h"
#include "workloads/layers/network.h"
#include "workloads/training/training_memory.h"
#include "workloads/training/training_step_config.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

// (ops finished, of the step's ops) while a step is simulated, for the progress line of a long one
// (`hpcsim run --exact` at thousands of GPUs runs minutes); called every few hundred events.
using StepProgress = std::function<void(std::size_t, std::size_t)>;

// std::invalid_argument for a batch below 1, degrees below 1, more GPUs than the cluster has, fewer
// layers than virtual stages, tensor parallelism on a model without tensor-parallel layers.
TrainingStepReport simulate_training_step(const Model& model, const ClusterConfig& cluster,
                                          const TrainingStepConfig& config, const StepProgress& progress = {});

// The memory of the GPU that needs the most, as simulate_training_step reports it, from the layer costs and
// the stage cut alone: nothing is simulated. Throws as simulate_training_step does.
TrainingMemory training_step_memory(const Model& model, const ClusterConfig& cluster, const TrainingStepConfig& config);

}  // namespace hpcsim

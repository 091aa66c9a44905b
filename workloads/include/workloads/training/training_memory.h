#pragma once
// Memory one data-parallel GPU holds for a training step, by component, so an out-of-memory report can
// say what does not fit. Mixed precision (fp16, bf16, fp8) keeps 2-byte weights and gradients plus fp32
// master weights in the optimizer state; fp32 and tf32 keep everything in fp32.
#include <cstdint>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/optimizer.h"
#include "models/gpu/precision.h"
#include "workloads/layers/network.h"

namespace hpcsim {

struct TrainingMemory {
  double weights = 0;
  double gradients = 0;
  double optimizer_state = 0;  // moments, momentum and fp32 master weights
  double activations = 0;      // forward results kept for backward, for the whole per-GPU batch
  double workspace = 0;        // transient buffers: the largest layer's gradients in flight, DDP buckets
  double total() const { return weights + gradients + optimizer_state + activations + workspace; }
};

bool keeps_master_weights(Precision p);
// Bytes per parameter of the model's weights and of its gradients in this precision.
double weight_bytes_per_param(Precision p);
double gradient_bytes_per_param(Precision p);
// Optimizer state per parameter: the fp32 moments (Adam/AdamW/LAMB two, momentum one, SGD none) plus the
// fp32 master copy that mixed precision keeps.
double optimizer_state_bytes_per_param(OptimizerKind optimizer, Precision p);

TrainingMemory training_memory(const Model& model, std::int64_t batch_per_gpu, Precision precision,
                               OptimizerKind optimizer);

}  // namespace hpcsim

#pragma once
// Per-layer costs of one microbatch on one GPU of a tensor-parallel group: kernel times, tensor-parallel
// traffic, parameters held, activations kept. Private to the training step.
#include <cstdint>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "workloads/layers/network.h"
#include "workloads/training/training_step_config.h"

namespace hpcsim::training_detail {

struct LayerCost {
  const LayerNode* node = nullptr;
  int network = 0;               // index in the model
  int index = 0;                 // node index in its network
  std::string unit;              // checkpointing / sharding unit: the first component of the layer name
  double forward_s = 0, backward_s = 0;  // backward: data (when needed) plus weight
  double backward_data_s = 0, backward_weight_s = 0;
  double forward_flops = 0;      // of the whole layer (all tp ranks), for model FLOPs
  TensorParallelTraffic tp;      // all-reduced bytes per GPU
  double params = 0;             // held by one tp rank
  double cast_weights = 0;       // of those, cast to the narrow GEMM format once per step (fp8 training)
  std::int64_t tensors = 0;      // parameter tensors (weight and bias) held
  double activation_bytes = 0;   // kept for backward, per GPU
  double input_bytes = 0;        // the layer's inputs, per GPU (what a checkpoint keeps)
  double output_bytes = 0;       // the layer's output, whole (what a pipeline stage sends on)
  double local_output_bytes = 0; // this GPU's part of it (tensor-parallel shards, sequence-parallel tokens)
  // Selective recomputation (recompute.h): the core attention's kept bytes it drops (already taken out of
  // activation_bytes), the seconds of its forward run again in backward, and that forward's FLOPs.
  double recompute_bytes = 0, recompute_s = 0, recompute_flops = 0;
};

// Costs of every layer of every network, in network order (the loss last).
std::vector<LayerCost> layer_costs(const Model& model, const GpuSpec& gpu, const TrainingStepConfig& run);

}  // namespace hpcsim::training_detail

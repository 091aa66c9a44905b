#pragma once
// The cost of inference on one replica: one forward pass of a batch (what a serving worker spends on it,
// framework overheads included), the largest batch that fits in memory, and what the replica costs.
#include <optional>

#include "workloads/inference/inference_setup.h"

namespace hpcsim {

// Seconds for one forward pass of `batch` requests on one replica worker. On GPUs every layer's forward
// kernels (layer_costs, fusion in compile mode) issued by one host thread (KernelIssue: dispatch-bound
// gaps, CUDA graphs); on CPUs each op's roofline on the worker's cores (models/cpu/cpu_op_time.h) plus the
// framework's host dispatch per op. std::invalid_argument for batch < 1 or beyond max_batch_in_memory.
double batch_latency_s(const InferenceSetup& setup, int batch);

// The largest batch whose weights and live activations fit: GPU memory (x tp) or the instance's host
// memory shared by its workers. 0 when even the weights do not fit.
int max_batch_in_memory(const InferenceSetup& setup);

// US dollars per replica-hour (nodes x the instance's on-demand price) when configs/prices has the node.
std::optional<double> replica_price_per_hour(const InferenceSetup& setup);

}  // namespace hpcsim

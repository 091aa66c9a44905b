#include "workloads/planning/screen_estimate.h"

#include <algorithm>

#include "workloads/training/training_memory.h"

namespace hpcsim {

namespace {

// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models", table 2): a
// transformer block keeps 34 s b h bytes of 16-bit activations (besides the attention scores), and Megatron's
// tensor parallelism all-reduces the s b h hidden state 2 times forward and 2 times backward (8 s b h bytes).
// Full checkpointing keeps only the block input (2 s b h bytes). So from a model's activation bytes:
constexpr double kTensorParallelBytesPerActivationByte = 8.0 / 34.0;
constexpr double kCheckpointKeptPerActivationByte = 2.0 / 34.0;
// Recomputing the forward during backward adds one forward to the three passes' worth of FLOPs.
constexpr double kRecomputeFlopsFactor = 4.0 / 3.0;
// Under DDP without pipelining, gradient buckets reduce while backward (two thirds of the step's FLOPs)
// runs, so only what outlasts backward is exposed.
constexpr double kBackwardShare = 2.0 / 3.0;

double ring_allreduce_s(double bytes, int ranks, double bandwidth) {
  if (ranks <= 1 || bandwidth <= 0) return 0;
  return 2.0 * (ranks - 1) / ranks * bytes / bandwidth;
}

}  // namespace

ModelFootprint model_footprint(const WorkloadConfig& workload, std::int64_t micro_batch) {
  ModelFootprint f;
  const Model& model = workload.built;
  f.params = static_cast<double>(model.params());
  f.activation_bytes = training_memory(model, micro_batch, workload.precision, workload.optimizer).activations;
  int attention = 0;
  for (const Network& net : model.networks) {
    f.forward_flops += net.forward_flops(LayerRun{micro_batch, workload.precision});
    for (const LayerNode& n : net.nodes()) attention += n.layer && n.layer->traits().self_attention;
  }
  f.blocks = std::max(1, attention);
  return f;
}

ScreenEstimate screen_estimate(const ModelFootprint& model, const WorkloadConfig& workload, const NodeSpec& node,
                               const NetworkSpec& network, const ScreenLayout& l) {
  ScreenEstimate e;
  const double shards = static_cast<double>(l.tp) * l.pp;  // GPUs one replica's weights are cut over
  const bool checkpoint = workload.recompute == Recompute::full;  // selective: screened as none (its saving is the attention core)

  // Memory of the busiest GPU: the first pipeline stage, which holds pp microbatches in flight under 1F1B.
  const double stage_params = model.params / shards;
  const double dp = l.dp;
  const Precision p = workload.precision;
  const double weights = stage_params * weight_bytes_per_param(p) / (l.zero >= 3 ? dp : 1);
  const double gradients = stage_params * gradient_bytes_per_param(p) / (l.zero >= 2 ? dp : 1);
  const double optimizer = stage_params * optimizer_state_bytes_per_param(workload.optimizer, p) / (l.zero >= 1 ? dp : 1);
  const double per_micro = model.activation_bytes / shards;
  const double in_flight = std::min(l.pp, l.microbatches);
  const double block_working_set = model.activation_bytes / model.blocks / l.tp;
  const double activations = checkpoint ? per_micro * kCheckpointKeptPerActivationByte * in_flight + block_working_set
                                        : per_micro * in_flight;
  e.memory_per_gpu_bytes = weights + gradients + optimizer + activations;
  e.fits_in_memory = e.memory_per_gpu_bytes <= node.gpu.memory_bytes();

  // Compute: every GPU runs its 1/(tp pp) share of three passes (four with recomputation) per microbatch.
  const double flops = 3.0 * model.forward_flops * l.microbatches / shards * (checkpoint ? kRecomputeFlopsFactor : 1.0);
  e.compute_s = flops / node.gpu.achievable_matmul_flops(p);
  e.bubble_s = e.compute_s * (l.pp - 1) / l.microbatches;

  // Tensor parallelism inside the node, on the GPU links (blocking: on the critical path).
  const double tp_bytes = model.activation_bytes * kTensorParallelBytesPerActivationByte / l.pp * l.microbatches;
  e.tensor_parallel_s = ring_allreduce_s(tp_bytes, l.tp, node.gpu_link.bandwidth);

  // Data parallelism: each GPU's gradients over its share of the node's NICs.
  const double gpus_per_nic = static_cast<double>(node.gpus) / std::max(1, node.nics.count);
  // A port runs at the slower of the NIC and the network (a 200 Gb/s HDR NIC on a 400 Gb/s fabric).
  const double port = std::min(network.payload_bandwidth(), node.nics.rate_bits / 8.0);
  const double nic_bandwidth = port / gpus_per_nic;
  const double bandwidth = l.nodes > 1 ? nic_bandwidth : node.gpu_link.bandwidth;
  // ZeRO-2 reduce-scatters gradients after every microbatch (then all-gathers the updated weights once);
  // ZeRO-3 also all-gathers each unit's weights before its forward and its backward, every microbatch.
  // A ring reduce-scatter or all-gather moves (dp - 1) / dp of the bytes, an all-reduce twice that.
  const double grad_bytes = stage_params * gradient_bytes_per_param(p);
  const double passes = l.zero >= 3 ? 3.0 * l.microbatches : l.zero == 2 ? l.microbatches + 1.0 : 2.0;
  const double reduce_s = ring_allreduce_s(grad_bytes, l.dp, bandwidth) / 2.0 * passes;
  e.data_parallel_s = l.pp == 1 ? std::max(0.0, reduce_s - kBackwardShare * e.compute_s) : reduce_s;

  e.step_s = e.compute_s + e.bubble_s + e.tensor_parallel_s + e.data_parallel_s;
  e.gpu_activity = e.step_s > 0 ? e.compute_s / e.step_s : 0;
  return e;
}

}  // namespace hpcsim

#include "workloads/training/data_parallel_step.h"

#include <vector>

#include "models/collectives/ring_allreduce.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/critical_path.h"
#include "sim-core/execution_graph.h"
#include "sim-core/executor.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"
#include "workloads/gpt_shape.h"

namespace hpcsim {

namespace {

enum OpKind : OpType { kFixedDuration = 0, kAllReduce = 1 };
enum Tag : OpTag { kComputeTag = 0, kCommunicationTag = 1, kOptimizerTag = 2 };
constexpr StreamId kComputeStream = 0;
constexpr StreamId kCommStream = 1;

bool mixed_precision(Precision p) { return p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8; }

// Optimizer state bytes per parameter (fp32 master weights under mixed precision).
double optimizer_state_bytes(const WorkloadConfig& w) {
  const double master = mixed_precision(w.precision) ? 4 : 0;
  if (w.optimizer == "adam" || w.optimizer == "adamw") return master + 8;
  if (w.optimizer == "momentum") return master + 4;
  return master;
}

// HBM bytes the update moves per parameter: read the gradient, read and write the state (the fp32
// master weights are state under mixed precision), and write the weights (read them too when they
// are their own master copy). Adam under bf16: 2 + 2*12 + 2 = 28 bytes.
double optimizer_traffic_bytes(const WorkloadConfig& w, double weight_bytes, double grad_bytes) {
  const double weights = mixed_precision(w.precision) ? weight_bytes : 2 * weight_bytes;
  return grad_bytes + 2 * optimizer_state_bytes(w) + weights;
}

struct GraphPlan {
  ExecutionGraph graph;
  // By payload: seconds for a fixed-duration op, bytes for an all-reduce.
  std::vector<double> amount;
};

GraphPlan plan_step(const Scenario& s) {
  const GptShape shape = GptShape::of(s.workload);
  const GpuSpec& gpu = s.cluster.node.gpu;
  const Precision p = s.workload.precision;
  const double flop_rate = gpu.achievable_matmul_flops(p);
  const double value_bytes = bytes_per_element(p);
  const double grad_bytes = mixed_precision(p) ? 2 : 4;

  GraphPlan plan;
  auto fixed = [&plan](std::string name, double seconds, OpTag tag, StreamId stream, std::vector<OpId> deps) {
    plan.amount.push_back(seconds);
    return plan.graph.add_op(OpSpec{std::move(name), kFixedDuration, stream, plan.amount.size() - 1, tag,
                                    std::move(deps)});
  };
  auto allreduce = [&plan](std::string name, double bytes, OpId after) {
    plan.amount.push_back(bytes);
    return plan.graph.add_op(
        OpSpec{std::move(name), kAllReduce, kCommStream, plan.amount.size() - 1, kCommunicationTag, {after}});
  };

  const int layers = s.workload.layers;
  const double layer_fwd = shape.layer_forward_flops() / flop_rate;
  const double logits_fwd = shape.logits_forward_flops() / flop_rate;
  for (int l = 0; l < layers; ++l) fixed("fwd.layer" + std::to_string(l), layer_fwd, kComputeTag, kComputeStream, {});
  fixed("fwd.logits", logits_fwd, kComputeTag, kComputeStream, {});
  fixed("bwd.logits", 2 * logits_fwd, kComputeTag, kComputeStream, {});

  std::vector<OpId> reductions;
  double bucket = 0;
  int bucket_index = 0;
  const double layer_grad_bytes = shape.params_per_layer() * grad_bytes;
  for (int l = layers - 1; l >= 0; --l) {
    const OpId bwd = fixed("bwd.layer" + std::to_string(l), 2 * layer_fwd, kComputeTag, kComputeStream, {});
    bucket += layer_grad_bytes;
    if (l == 0) bucket += shape.params_outside_layers() * grad_bytes;  // the tied embedding is ready last
    if (bucket >= kGradientBucketBytes || l == 0) {
      reductions.push_back(allreduce("allreduce.bucket" + std::to_string(bucket_index++), bucket, bwd));
      bucket = 0;
    }
  }
  const double update_bytes = shape.params() * optimizer_traffic_bytes(s.workload, value_bytes, grad_bytes);
  fixed("optimizer." + s.workload.optimizer, update_bytes / gpu.achievable_memory_bandwidth(), kOptimizerTag,
        kComputeStream, reductions);
  plan.graph.finalize();
  return plan;
}

double memory_per_gpu(const Scenario& s) {
  const GptShape shape = GptShape::of(s.workload);
  const Precision p = s.workload.precision;
  const double value_bytes = bytes_per_element(p);
  const double grad_bytes = mixed_precision(p) ? 2 : 4;
  const double weights = shape.params() * (value_bytes + grad_bytes + optimizer_state_bytes(s.workload));
  const double activation_value = mixed_precision(p) ? 2 : 4;
  // Logits kept in the activation precision plus fp32 for the loss.
  const double logits = shape.batch * shape.seq * shape.vocab * (activation_value + 4);
  return weights + shape.layers * shape.layer_activation_bytes(activation_value) + logits;
}

}  // namespace

StepResult simulate_data_parallel_step(const Scenario& s) {
  GraphPlan plan = plan_step(s);
  Simulator sim;
  FairShare fair_share(sim);
  const ClusterFabric fabric(fair_share, s.cluster.node, s.cluster.nodes, s.cluster.gpus_per_node, s.cluster.network,
                           s.cluster.topology);

  Executor executor(sim, plan.graph);
  executor.set_fixed_duration(kFixedDuration, [&plan](OpId op) {
    return Time::seconds(plan.amount[plan.graph.payload(op)]);
  });
  executor.set_handler(kAllReduce, [&](OpId op, Completion done) {
    start_ring_allreduce(sim, fair_share, fabric, plan.amount[plan.graph.payload(op)], [done] { done(); });
  });
  const Time makespan = executor.run();
  const CriticalPath path = critical_path(executor);

  StepResult r;
  const GptShape shape = GptShape::of(s.workload);
  r.gpus = s.cluster.gpus();
  r.step_time_s = makespan.to_seconds();
  r.samples_per_s = shape.batch * s.parallelism.dp / r.step_time_s;
  r.tokens_per_s = r.samples_per_s * shape.seq;
  r.tflops_per_gpu = shape.training_flops() / r.step_time_s / 1e12;
  r.mfu = r.tflops_per_gpu * 1e12 / s.cluster.node.gpu.peak(s.workload.precision);
  r.breakdown.compute = path.time_by_tag[kComputeTag].to_seconds();
  r.breakdown.communication_exposed = path.time_by_tag[kCommunicationTag].to_seconds();
  r.breakdown.optimizer = path.time_by_tag[kOptimizerTag].to_seconds();
  r.breakdown.other = path.waiting.to_seconds();
  r.memory_per_gpu_bytes = memory_per_gpu(s);
  r.fits_in_memory = r.memory_per_gpu_bytes <= s.cluster.node.gpu.memory_bytes();
  r.events = sim.events_processed();
  return r;
}

}  // namespace hpcsim

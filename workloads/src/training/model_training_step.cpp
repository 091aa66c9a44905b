#include "workloads/training/model_training_step.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/critical_path.h"
#include "sim-core/execution_graph.h"
#include "sim-core/executor.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

namespace hpcsim {

namespace {

enum OpKind : OpType { kFixedDuration = 0, kAllReduce = 1 };
enum Tag : OpTag { kComputeTag = 0, kCommunicationTag = 1, kOptimizerTag = 2 };
constexpr StreamId kComputeStream = 0;
constexpr StreamId kCommStream = 1;

struct StepPlan {
  ExecutionGraph graph;
  std::vector<double> amount;  // by payload: seconds for a kernel op, bytes for an all-reduce
  int buckets = 0;
};

struct LayerRef {
  const LayerNode* node;
  bool needs_input_gradient;  // false when fed only by network inputs: nothing upstream to train
};

class PlanBuilder {
 public:
  PlanBuilder(const GpuSpec& gpu, const DataParallelRun& run, int dp) : gpu_(gpu), run_(run), dp_(dp) {}

  // Adds an op of the kernels' estimated time; returns kNoOp when there are no kernels.
  OpId kernels(const std::string& name, const std::vector<Kernel>& ks, OpTag tag) {
    if (ks.empty()) return kNoOp;
    plan_.amount.push_back(estimate_op(gpu_, ks).time_s);
    return plan_.graph.add_op(
        OpSpec{name, kFixedDuration, kComputeStream, plan_.amount.size() - 1, tag, {}});
  }

  // Counts a layer's gradients into the open bucket; all-reduces it once full.
  void gradients_ready(double bytes, OpId produced_by) {
    if (dp_ <= 1 || bytes <= 0) return;
    bucket_ += bytes;
    last_producer_ = produced_by;
    if (bucket_ >= run_.bucket_bytes) flush();
  }

  void flush() {
    if (bucket_ <= 0) return;
    plan_.amount.push_back(bucket_);
    reductions_.push_back(plan_.graph.add_op(OpSpec{"allreduce.bucket" + std::to_string(plan_.buckets++),
                                                    kAllReduce, kCommStream, plan_.amount.size() - 1,
                                                    kCommunicationTag, {last_producer_}}));
    bucket_ = 0;
  }

  const std::vector<OpId>& reductions() const { return reductions_; }
  StepPlan& plan() { return plan_; }

 private:
  const GpuSpec& gpu_;
  const DataParallelRun& run_;
  int dp_;
  StepPlan plan_;
  std::vector<OpId> reductions_;
  double bucket_ = 0;
  OpId last_producer_ = kNoOp;
};

std::vector<LayerRef> layers_in_order(const Model& model) {
  std::vector<LayerRef> out;
  for (const Network& net : model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (!n.layer) continue;
      bool from_layer = false;
      for (int i : n.inputs) from_layer |= static_cast<bool>(net.nodes()[i].layer);
      out.push_back({&n, from_layer});
    }
  }
  return out;
}

// Parameter tensors the optimizer loops over: a weight and a bias (or scale and shift) per layer with
// parameters. Layers do not report their tensor split; this only sets launch counts of unfused updates.
std::int64_t parameter_tensors(const std::vector<LayerRef>& layers) {
  std::int64_t tensors = 0;
  for (const LayerRef& l : layers) tensors += l.node->layer->params(l.node->input_shapes) > 0 ? 2 : 0;
  return tensors > 0 ? tensors : 1;
}

StepPlan plan_step(const Model& model, const GpuSpec& gpu, const DataParallelRun& run, int dp) {
  const LayerRun layer_run{run.batch_per_gpu, run.precision};
  const std::vector<LayerRef> layers = layers_in_order(model);
  std::vector<LayerKernels> k;
  k.reserve(layers.size());
  for (const LayerRef& l : layers) k.push_back(l.node->layer->kernels(gpu, l.node->input_shapes, layer_run));

  PlanBuilder b(gpu, run, dp);
  for (std::size_t i = 0; i < layers.size(); ++i) b.kernels("fwd." + layers[i].node->name, k[i].forward, kComputeTag);
  const double grad_bytes = gradient_bytes_per_param(run.precision);
  for (std::size_t i = layers.size(); i-- > 0;) {
    const LayerNode& n = *layers[i].node;
    OpId last = kNoOp;
    if (layers[i].needs_input_gradient) last = b.kernels("bwd_data." + n.name, k[i].backward_data, kComputeTag);
    const OpId weight = b.kernels("bwd_weight." + n.name, k[i].backward_weight, kComputeTag);
    if (weight != kNoOp) last = weight;
    const double bytes = static_cast<double>(n.layer->params(n.input_shapes)) * grad_bytes;
    if (bytes > 0 && last == kNoOp) throw std::logic_error(n.name + " has parameters but no backward kernels");
    b.gradients_ready(bytes, last);
  }
  b.flush();

  std::vector<Kernel> update = optimizer_step(OptimizerStep{run.optimizer, run.optimizer_impl,
                                                            static_cast<double>(model.params()),
                                                            parameter_tensors(layers), Precision::fp32});
  if (keeps_master_weights(run.precision)) {
    const double params = static_cast<double>(model.params());
    update.push_back(elementwise_kernel("master_to_model_weights", params, 1,
                                        {{4, false}, {weight_bytes_per_param(run.precision), true}}));
  }
  const OpId opt = b.kernels("optimizer", update, kOptimizerTag);
  for (OpId r : b.reductions()) {
    if (opt != kNoOp) b.plan().graph.add_dependency(r, opt);
  }
  b.plan().graph.finalize();
  return std::move(b.plan());
}

// Tokens each sample carries: the steps of the first network's token-id inputs (those feeding an
// embedding); none for models without one.
std::int64_t tokens_per_sample(const Model& model) {
  if (model.networks.empty()) return 0;
  const Network& net = model.networks.front();
  for (const LayerNode& n : net.nodes()) {
    if (!n.layer || n.layer->type() != "embedding") continue;
    for (int i : n.inputs) {
      const LayerNode& in = net.nodes()[i];
      if (!in.layer && in.output.size() == 1) return in.output[0];
    }
  }
  return 0;
}

}  // namespace

ModelStepReport simulate_model_training_step(const Model& model, const ClusterConfig& cluster,
                                             const DataParallelRun& run) {
  const int dp = run.dp == 0 ? cluster.gpus() : run.dp;
  if (run.batch_per_gpu < 1) throw std::invalid_argument("batch_per_gpu must be at least 1");
  if (dp < 1 || dp > cluster.gpus()) {
    throw std::invalid_argument("dp " + std::to_string(dp) + " outside 1.." + std::to_string(cluster.gpus()) +
                                " (the cluster's GPUs)");
  }
  const GpuSpec& gpu = cluster.node.gpu;
  StepPlan plan = plan_step(model, gpu, run, dp);

  Simulator sim;
  FairShare fair_share(sim);
  const ClusterFabric fabric(fair_share, cluster.node, cluster.nodes, cluster.gpus_per_node, cluster.network,
                             cluster.topology);
  const CollectiveGroup group = CollectiveGroup::first(fabric, dp);
  Executor executor(sim, plan.graph);
  executor.set_fixed_duration(kFixedDuration, [&plan](OpId op) {
    return Time::seconds(plan.amount[plan.graph.payload(op)]);
  });
  executor.set_handler(kAllReduce, [&](OpId op, Completion done) {
    CollectiveRequest request;
    request.op = CollectiveOp::allreduce;
    request.bytes = plan.amount[plan.graph.payload(op)];
    start_collective(sim, fair_share, fabric, group, request, [done](const CollectiveStats&) { done(); });
  });
  const Time makespan = executor.run();
  const CriticalPath path = critical_path(executor);

  ModelStepReport report;
  report.memory = training_memory(model, run.batch_per_gpu, run.precision, run.optimizer);
  report.gradient_buckets = plan.buckets;
  for (OpId op = 0; op < plan.graph.size(); ++op) {
    if (plan.graph.type(op) == kAllReduce) report.allreduce_time_s += (executor.op_end(op) - executor.op_start(op)).to_seconds();
  }
  double forward_flops = 0;
  for (const Network& net : model.networks) forward_flops += net.forward_flops({run.batch_per_gpu, run.precision});
  report.model_flops = 3 * forward_flops;

  StepResult& r = report.result;
  r.gpus = dp;
  r.step_time_s = makespan.to_seconds();
  r.samples_per_s = static_cast<double>(run.batch_per_gpu) * dp / r.step_time_s;
  if (const std::int64_t tokens = tokens_per_sample(model); tokens > 0) r.tokens_per_s = r.samples_per_s * tokens;
  r.tflops_per_gpu = report.model_flops / r.step_time_s / 1e12;
  r.mfu = r.tflops_per_gpu * 1e12 / gpu.peak(run.precision);
  r.breakdown.compute = path.time_by_tag[kComputeTag].to_seconds();
  r.breakdown.communication_exposed = path.time_by_tag[kCommunicationTag].to_seconds();
  r.breakdown.optimizer = path.time_by_tag[kOptimizerTag].to_seconds();
  r.breakdown.other = path.waiting.to_seconds();
  r.memory_per_gpu_bytes = report.memory.total();
  r.memory = MemoryBreakdown{report.memory.weights, report.memory.gradients, report.memory.optimizer_state,
                             report.memory.activations};
  r.fits_in_memory = r.memory_per_gpu_bytes <= gpu.memory_bytes();
  r.events = sim.events_processed();
  return report;
}

}  // namespace hpcsim

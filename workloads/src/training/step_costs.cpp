// Per-stage costs, data-parallel groups, transfers, buckets, the optimizer and memory of a step.
#include "step_planner.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include "models/gpu/ops/fp8_cast.h"
#include "models/gpu/ops/op_kernel.h"
#include "workloads/training/kernel_issue.h"
#include "workloads/training/tp_comm_overlap.h"

namespace hpcsim::training_detail {

// Within an int: a scenario holds the cycle to the gan_iterations count limit when it is read.
int gan_iterations(const GanRecipe& g) { return static_cast<int>(g.cycle_iterations()); }

namespace {

// Tensor-parallel collectives of one stage under --tp-comm-overlap (tp_comm_overlap.h). The overlapped
// collectives are those of a transformer block's tensor-parallel regions: column-parallel layers up to the
// row-parallel layer that closes them (the MLP: the all-gather before FC1, the reduce-scatter after FC2), or a
// layer that is a region by itself (attention: the all-gather before QKV, the reduce-scatter after the
// projection; it carries traffic both ways). Each region's communication is pipelined with the GEMM time
// of its layers; traffic outside such a region (a vocabulary-parallel embedding, an unpaired
// column-parallel head) stays blocking, as Megatron runs it outside Transformer Engine's layers.
class OverlapRegions {
 public:
  OverlapRegions(int chunks, double forward_rate, double backward_rate)
      : chunks_(chunks), forward_rate_(forward_rate), backward_rate_(backward_rate) {}

  void add(const LayerCost& c, double share, double comm_forward_s, double comm_backward_s) {
    const TensorSplit split = c.node->layer->tensor_split();
    const double forward_s = c.forward_s * share, backward_s = c.backward_s * share;
    if (split == TensorSplit::column && !open_now_) {
      open_ = Region{forward_s, backward_s, comm_forward_s, comm_backward_s};
      open_now_ = true;
    } else if (split == TensorSplit::column) {  // a second input GEMM of the region (a gated MLP's up and gate)
      open_.gemm_forward_s += forward_s, open_.gemm_backward_s += backward_s;
      open_.comm_forward_s += comm_forward_s, open_.comm_backward_s += comm_backward_s;
    } else if (split == TensorSplit::row && open_now_) {
      open_.gemm_forward_s += forward_s, open_.gemm_backward_s += backward_s;
      open_.comm_forward_s += comm_forward_s, open_.comm_backward_s += comm_backward_s;
      overlap(open_);
      open_now_ = false;
    } else if (split == TensorSplit::none && !open_now_ && comm_forward_s > 0 && comm_backward_s > 0) {
      overlap(Region{forward_s, backward_s, comm_forward_s, comm_backward_s});
    } else if (open_now_) {  // between the GEMMs (an activation): no GEMM to hide under, its traffic joins
      open_.comm_forward_s += comm_forward_s, open_.comm_backward_s += comm_backward_s;
    } else {
      forward_ += comm_forward_s, backward_ += comm_backward_s;
    }
  }
  // The stage's exposed tensor-parallel seconds per pass (a region the stage cut leaves open: blocking).
  std::pair<double, double> finish() {
    close_unpaired();
    return {forward_, backward_};
  }

 private:
  struct Region {
    double gemm_forward_s = 0, gemm_backward_s = 0, comm_forward_s = 0, comm_backward_s = 0;
  };
  void overlap(const Region& r) {
    forward_ += exposed_tp_comm(r.comm_forward_s, r.gemm_forward_s, chunks_, forward_rate_);
    backward_ += exposed_tp_comm(r.comm_backward_s, r.gemm_backward_s, chunks_, backward_rate_);
  }
  void close_unpaired() {
    if (open_now_) forward_ += open_.comm_forward_s, backward_ += open_.comm_backward_s;
    open_now_ = false;
  }
  int chunks_;
  double forward_rate_, backward_rate_;
  Region open_;  // the region being gathered, while open_now_ (a plain flag: GCC 12 warned on an optional)
  bool open_now_ = false;
  double forward_ = 0, backward_ = 0;
};

}  // namespace

void StepPlanner::cost_stages() {
  const std::vector<std::size_t> cuts = partition_by_time(costs_, plan_.layout.virtual_stages());
  const double share = 1.0 / plan_.layout.cp;  // context parallelism: each GPU takes 1/cp of the tokens
  // The userbuffers kernels' SMs as a share of the GPU's, as the data-parallel collectives' (sm_contention.h).
  const double sms = gpu_.sm_count;
  const double forward_rate = std::max(0.05, (sms - kTpOverlapForwardSms) / sms);
  const double backward_rate = std::max(0.05, (sms - kTpOverlapBackwardSms) / sms);
  for (int v = 0; v < plan_.layout.virtual_stages(); ++v) {
    StageCost s;
    s.first = cuts[v], s.last = cuts[v + 1];
    std::string unit;
    double unit_activations = 0;
    OverlapRegions regions(plan_.layout.tp, forward_rate, backward_rate);
    for (std::size_t i = s.first; i < s.last; ++i) {
      const LayerCost& c = costs_[i];
      s.forward_s += c.forward_s * share;
      s.backward_s += c.backward_s * share;
      s.forward_flops += c.forward_flops;
      s.params += c.params;
      s.cast_weights += c.cast_weights;
      s.tensors += c.tensors;
      if (tp_) {
        const double forward = tp_->time(CollectiveOp::allreduce, c.tp.forward_bytes * share);
        const double backward = tp_->time(CollectiveOp::allreduce, c.tp.backward_bytes * share);
        if (run_.tp_comm_overlap) {
          regions.add(c, share, forward, backward);
        } else {
          s.tp_forward_s += forward, s.tp_backward_s += backward;
        }
      }
      if (cp_ && c.node->layer->traits().self_attention) {
        // Ring attention: the other ranks' keys and values (twice the input width at most) arrive while
        // the local blocks compute; only what the compute does not cover is exposed.
        const double kv = 2 * c.input_bytes * share;
        s.tp_forward_s += std::max(0.0, cp_->time(CollectiveOp::allgather, kv) - c.forward_s * share);
        s.tp_backward_s += std::max(0.0, cp_->time(CollectiveOp::reducescatter, kv) - c.backward_s * share);
      }
      if (run_.recompute == Recompute::full) {
        if (c.unit != unit) {  // a new checkpoint unit: its input is kept, the rest recomputed in backward
          s.activations += c.input_bytes * share;
          s.checkpoint_working_set = std::max(s.checkpoint_working_set, unit_activations);
          unit_activations = 0;
          unit = c.unit;
        }
        unit_activations += c.activation_bytes * share;
      } else {
        // Selective: activation_bytes is already without the core attention's, which one layer at a time
        // holds again while it is recomputed.
        s.activations += c.activation_bytes * share;
        s.recompute_s += c.recompute_s * share;
        s.checkpoint_working_set = std::max(s.checkpoint_working_set, c.recompute_bytes * share);
      }
    }
    if (tp_ && run_.tp_comm_overlap) {
      const auto [forward, backward] = regions.finish();
      s.tp_forward_s += forward, s.tp_backward_s += backward;
    }
    s.checkpoint_working_set = std::max(s.checkpoint_working_set, unit_activations);
    if (run_.recompute == Recompute::full) s.recompute_s = s.forward_s;
    // What crosses the cut: every output of this stage that a later layer reads (skip connections too).
    for (std::size_t i = s.first; i < s.last; ++i) {
      bool read_later = false;
      for (std::size_t j = s.last; j < costs_.size() && !read_later; ++j) {
        if (costs_[j].network != costs_[i].network) continue;
        for (int in : costs_[j].node->inputs) read_later |= in == costs_[i].index;
      }
      if (read_later) s.send_bytes += costs_[i].output_bytes * share;
    }
    plan_.stages.push_back(s);
  }
}

void StepPlanner::plan_groups() {
  plan_.dp_gpus.assign(plan_.layout.pp, {});
  // Context-parallel ranks hold the same weights, so gradients are reduced over dp x cp (Megatron's
  // data-parallel-with-context group), one group per tp rank.
  for (int s = 0; s < plan_.layout.pp; ++s) {
    for (int r = 0; r < plan_.layout.tp; ++r) {
      std::vector<int> gpus;
      for (int d = 0; d < plan_.layout.dp; ++d) {
        for (int c = 0; c < plan_.layout.cp; ++c) gpus.push_back(plan_.layout.gpu(s, d, r, c));
      }
      plan_.dp_gpus[s].push_back(std::move(gpus));
    }
  }
}

// Megatron's scatter/gather: each of the tp x cp GPUs sends its share over its own path (between nodes
// through the NICs beside it: GPUs sharing a NIC share its rail), then the tp group all-gathers the pieces; under sequence
// parallelism each rank's share is the part of the sequence it works on next, so nothing is gathered.
// The idle platform is built only when a stage passes something on: a fabric of 16,384 GPUs costs more to
// build than a pure data-parallel step (one stage) costs to plan.
// The NICs the tp x cp GPUs of one replica of `stage` send through (each GPU its own, as NCCL picks the
// network device local to the GPU: ncclTopoGetLocalNet), counted once per node: GPUs that share a NIC
// share its bandwidth.
int StepPlanner::nics_of_stage(const ClusterFabric& fabric, int stage) const {
  std::set<std::pair<int, int>> nics;  // (node, NIC)
  for (int r = 0; r < plan_.layout.tp; ++r) {
    for (int c = 0; c < plan_.layout.cp; ++c) {
      const int gpu = plan_.placement.gpu(plan_.layout.gpu(stage, 0, r, c));
      for (int nic : fabric.nics_near_gpu(gpu % fabric.gpus_per_node())) nics.emplace(fabric.node_of(gpu), nic);
    }
  }
  return static_cast<int>(nics.size());
}

std::vector<double> StepPlanner::p2p_seconds() {
  std::optional<Platform> idle;  // routes only: nothing runs on it
  const int senders = plan_.layout.tp * plan_.layout.cp;
  std::vector<double> seconds(static_cast<std::size_t>(plan_.layout.virtual_stages()), 0.0);
  std::vector<int> stage_nics(static_cast<std::size_t>(plan_.layout.pp), -1);  // each pipeline stage's, once
  auto nics_of = [&](const ClusterFabric& fabric, int stage) {
    int& n = stage_nics[static_cast<std::size_t>(stage)];
    if (n < 0) n = nics_of_stage(fabric, stage);
    return n;
  };
  for (int v = 0; v + 1 < plan_.layout.virtual_stages(); ++v) {
    const double bytes = plan_.stages[v].send_bytes;
    if (bytes <= 0) continue;
    if (!idle) idle.emplace(plan_.placement.platform);
    const ClusterFabric& fabric = idle->fabric();
    const int a = plan_.layout.gpu(v % plan_.layout.pp, 0, 0, 0), b = plan_.layout.gpu((v + 1) % plan_.layout.pp, 0, 0, 0);
    const Hop& hop = fabric.route(plan_.placement.gpu(a), plan_.placement.gpu(b), 0);
    const int nics = hop.inter_node ? std::min(nics_of(fabric, v % plan_.layout.pp), nics_of(fabric, (v + 1) % plan_.layout.pp)) : 0;
    const double parallel = hop.inter_node ? std::min(senders, std::max(1, nics)) : senders;
    seconds[v] = hop.latency_s + bytes / (hop.bandwidth * parallel);
    if (tp_ && !run_.sequence_parallel) seconds[v] += tp_->time(CollectiveOp::allgather, bytes / plan_.layout.cp);
  }
  return seconds;
}

// Consecutive layers of a stage grouped until their gradients (or parameters) reach bucket_bytes; with
// by_unit, cuts fall only between checkpoint units (FSDP wraps whole blocks).
std::vector<Bucket> StepPlanner::buckets(const StageCost& s, double bucket_bytes, bool by_unit) const {
  std::vector<Bucket> out;
  const double bytes_per_param = gradient_bytes_per_param(run_.precision);
  Bucket open{s.first, s.first, 0};
  for (std::size_t i = s.first; i < s.last; ++i) {
    const bool unit_edge = i > s.first && costs_[i].unit != costs_[i - 1].unit;
    if (open.params * bytes_per_param >= bucket_bytes && (!by_unit || unit_edge)) {
      out.push_back(open);
      open = {i, i, 0};
    }
    open.last = i + 1;
    open.params += costs_[i].params;
  }
  out.push_back(open);
  return out;
}

double StepPlanner::optimizer_seconds(double params, std::int64_t tensors) const {
  const double shard = run_.zero >= 1 ? static_cast<double>(plan_.layout.replicas()) : 1.0;
  const double local = params / shard;
  if (local < 1) return 0;
  std::vector<Kernel> update = optimizer_step(OptimizerStep{
      run_.optimizer, run_.optimizer_impl, local, std::clamp<std::int64_t>(tensors, 1, static_cast<std::int64_t>(local)),
      Precision::fp32});
  if (keeps_master_weights(run_.precision)) {
    update.push_back(elementwise_kernel("master_to_model_weights", local, 1,
                                        {{4, false}, {weight_bytes_per_param(run_.precision), true}}));
  }
  return issue_time(gpu_, update, run_.issue);
}

// Transformer Engine casts each bf16 weight of an fp8 GEMM to fp8 with its transposed copy
// (fp8_cast_transpose_fused) in the first microbatch's forward and reuses it for the step's other
// microbatches (linear.py: update_fp8_weights only when is_first_microbatch is None or True; Megatron-Core
// sets it at each step's first microbatch): once per step, on the stage's compute stream beside the update.
double StepPlanner::weight_cast_seconds(double weights) const {
  if (!(weights >= 1) || !is_narrow_gemm_format(run_.precision)) return 0;
  return issue_time(gpu_, fp8_cast({weights, run_.precision, true, run_.fp8_scaling}), run_.issue);
}

TrainingMemory StepPlanner::stage_memory(int s) const {
  double params = 0, activations = 0, working = 0;
  for (int c = 0; c < plan_.layout.vp; ++c) {
    const StageCost& st = plan_.stages[c * plan_.layout.pp + s];
    params += st.params;
    activations += st.activations;
    working = std::max(working, st.checkpoint_working_set);
  }
  const double dp = plan_.layout.replicas();
  TrainingMemory mem;
  mem.weights = params * weight_bytes_per_param(run_.precision) / (run_.zero >= 3 ? dp : 1);
  mem.gradients = params * gradient_bytes_per_param(run_.precision) / (run_.zero >= 2 ? dp : 1);
  mem.optimizer_state = params * optimizer_state_bytes_per_param(run_.optimizer, run_.precision) / (run_.zero >= 1 ? dp : 1);
  const double in_flight = microbatches_in_flight(run_.schedule, s, plan_.layout.pp, run_.microbatches, plan_.layout.vp);
  mem.activations = activations * in_flight + working;
  // Backward holds a layer's output gradient and its input gradient at once, each this GPU's part (a
  // column-parallel output such as the vocabulary-parallel logits is 1/tp per GPU); DDP keeps its reduction
  // buckets as flat copies of the gradients they carry (two in flight).
  double largest = 0;
  for (int c = 0; c < plan_.layout.vp; ++c) {
    const StageCost& st = plan_.stages[c * plan_.layout.pp + s];
    for (std::size_t i = st.first; i < st.last; ++i) {
      largest = std::max(largest, costs_[i].local_output_bytes + costs_[i].input_bytes);
    }
  }
  mem.workspace = largest / plan_.layout.cp;
  if (plan_.layout.replicas() > 1 && run_.zero < 3 && run_.overlap_gradient_reduce) {
    mem.workspace += std::min(2 * run_.bucket_bytes, params * gradient_bytes_per_param(run_.precision));
  }
  return mem;
}

}  // namespace hpcsim::training_detail

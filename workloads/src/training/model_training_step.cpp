#include "workloads/training/model_training_step.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gan_kernels.h"
#include "layer_costs.h"
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

using training_detail::LayerCost;

namespace {

enum OpKind : OpType { kFixedDuration = 0, kCollective = 1 };
enum Tag : OpTag { kComputeTag = 0, kCommunicationTag = 1, kOptimizerTag = 2 };

struct Layout {
  int dp = 1, tp = 1, pp = 1, vp = 1, cp = 1;
  int virtual_stages() const { return pp * vp; }
  int gpu(int stage, int d, int r, int c) const { return r + tp * (c + cp * (d + dp * stage)); }
  int gpus() const { return dp * tp * pp * cp; }
  int replicas() const { return dp * cp; }  // ranks holding the same weights: what ZeRO shards over
};

Layout make_layout(const ClusterConfig& cluster, const TrainingRun& run) {
  Layout l{run.dp, run.tp, run.pp, run.vp, run.cp};
  if (run.micro_batch < 1 || run.microbatches < 1) throw std::invalid_argument("micro batch and microbatches must be >= 1");
  if (l.tp < 1 || l.pp < 1 || l.vp < 1 || l.cp < 1 || l.dp < 0) throw std::invalid_argument("parallel degrees must be >= 1");
  if (run.zero < 0 || run.zero > 3) throw std::invalid_argument("ZeRO stage must be 0..3");
  const int model_parallel = l.tp * l.pp * l.cp;
  if (l.dp == 0) l.dp = std::max(1, cluster.gpus() / model_parallel);
  if (l.gpus() > cluster.gpus()) {
    throw std::invalid_argument("dp x tp x pp x cp = " + std::to_string(l.gpus()) + " outside 1.." +
                                std::to_string(cluster.gpus()) + " (the cluster's GPUs)");
  }
  return l;
}

// Contiguous cut of the layers into `parts` runs of about equal forward + backward time: cut k goes where
// the running time is nearest k/parts of the total, each run keeping at least one layer.
std::vector<std::size_t> partition_by_time(const std::vector<LayerCost>& costs, int parts) {
  const std::size_t n = costs.size();
  if (static_cast<std::size_t>(parts) > n) {
    throw std::invalid_argument(std::to_string(parts) + " pipeline stages but the model has " + std::to_string(n) + " layers");
  }
  std::vector<double> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + costs[i].forward_s + costs[i].backward_s;
  std::vector<std::size_t> cuts{0};
  for (int k = 1; k < parts; ++k) {
    const double target = prefix[n] * k / parts;
    std::size_t i = static_cast<std::size_t>(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin());
    if (i > 0 && target - prefix[i - 1] < prefix[std::min(i, n)] - target) --i;
    i = std::clamp(i, cuts.back() + 1, n - static_cast<std::size_t>(parts - k));
    cuts.push_back(i);
  }
  cuts.push_back(n);
  return cuts;
}

// Times collectives over one small group on an idle fabric of their own, once per size: the tensor- and
// context-parallel traffic that stays on its group's links.
class IsolatedCollectives {
 public:
  IsolatedCollectives(const ClusterConfig& cluster, const std::vector<int>& gpus)
      : fair_share_(sim_),
        fabric_(fair_share_, cluster.node, cluster.nodes, cluster.gpus_per_node, cluster.network, cluster.topology),
        group_(CollectiveGroup::of(fabric_, gpus)) {}

  double time(CollectiveOp op, double bytes) {
    if (bytes <= 0 || group_.size() < 2) return 0;
    auto [it, fresh] = cache_.try_emplace({static_cast<int>(op), bytes}, 0.0);
    if (!fresh) return it->second;
    CollectiveRequest request;
    request.op = op;
    request.bytes = bytes;
    const Time start = sim_.now();
    Time end = start;
    start_collective(sim_, fair_share_, fabric_, group_, request, [&end](const CollectiveStats& s) { end = s.end; });
    sim_.run();
    it->second = (end - start).to_seconds();
    return it->second;
  }

 private:
  Simulator sim_;
  FairShare fair_share_;
  ClusterFabric fabric_;
  CollectiveGroup group_;
  std::map<std::pair<int, double>, double> cache_;
};

// One virtual stage (a contiguous run of layers) for one microbatch on one GPU.
struct StageCost {
  std::size_t first = 0, last = 0;  // layers [first, last)
  double forward_s = 0, backward_s = 0, recompute_s = 0;
  double tp_forward_s = 0, tp_backward_s = 0;  // blocking tensor/context-parallel communication
  double params = 0;
  std::int64_t tensors = 0;
  double activations = 0;             // kept per microbatch (with checkpointing: unit inputs only)
  double checkpoint_working_set = 0;  // one unit's activations while it is recomputed
  double send_bytes = 0;              // activations passed to the next virtual stage
  double forward_flops = 0;           // whole layers, all tp ranks
};

// A run of layers whose parameters are gathered (ZeRO-3) or whose gradients are reduced together.
struct Bucket {
  std::size_t first, last;  // layers
  double params;
};

double state_bytes_per_param(const TrainingRun& run) {
  const double master = keeps_master_weights(run.precision) ? 4 : 0;
  switch (run.optimizer) {
    case OptimizerKind::adam:
    case OptimizerKind::adamw:
    case OptimizerKind::lamb: return 8 + master;
    case OptimizerKind::momentum: return 4 + master;
    case OptimizerKind::sgd: return master;
  }
  return master;
}

// Iterations in one step of a GAN recipe: the lazy-regularization cycle (both regularizers fall on the
// same iteration once per cycle), one without regularization.
int gan_iterations(const GanRecipe& g) { return std::lcm(std::max(1, g.r1_interval), std::max(1, g.pl_interval)); }

class StepBuilder {
 public:
  StepBuilder(const Model& model, const ClusterConfig& cluster, const TrainingRun& run)
      : model_(model), cluster_(cluster), run_(run), layout_(make_layout(cluster, run)), gpu_(cluster.node.gpu) {}

  ModelStepReport simulate();

 private:
  const Model& model_;
  const ClusterConfig& cluster_;
  const TrainingRun& run_;
  Layout layout_;
  const GpuSpec& gpu_;
  std::vector<LayerCost> costs_;
  std::vector<StageCost> stages_;  // by virtual stage
  std::optional<IsolatedCollectives> tp_, cp_;

  ExecutionGraph graph_;
  std::vector<double> seconds_;  // payload of fixed-duration ops
  struct Call {
    CollectiveOp op;
    double bytes;
    int stage;
  };
  std::vector<Call> calls_;  // payload of collective ops
  // Per pipeline stage, the data-parallel groups of its tp x cp ranks (they reduce at the same time).
  std::vector<std::vector<std::vector<int>>> dp_gpus_;
  std::vector<std::vector<OpId>> pass_ops_;  // per pipeline stage: its forward/backward ops
  int collectives_issued_ = 0;

  StreamId compute_stream(int stage) const { return stage; }
  StreamId dp_stream(int stage) const { return layout_.pp + stage; }
  StreamId p2p_stream(int v, bool forward) const {
    return 2 * layout_.pp + (forward ? 0 : layout_.virtual_stages()) + v;
  }

  OpId fixed(std::string name, double seconds, StreamId stream, OpTag tag) {
    seconds_.push_back(seconds);
    return graph_.add_op(OpSpec{std::move(name), kFixedDuration, stream, seconds_.size() - 1, tag, {}});
  }
  OpId collective(std::string name, CollectiveOp op, double bytes, int stage) {
    calls_.push_back({op, bytes, stage});
    ++collectives_issued_;
    return graph_.add_op(OpSpec{std::move(name), kCollective, dp_stream(stage), calls_.size() - 1,
                                kCommunicationTag, {}});
  }

  void cost_stages();
  void plan_groups();
  double p2p_seconds(int from_v, int to_v, double bytes);
  std::vector<Bucket> buckets(const StageCost& s, double bucket_bytes, bool by_unit) const;
  void build();
  void build_gan();
  bool is_gan() const {
    return model_.networks.size() == 2 && model_.networks[0].name() == "generator" &&
           model_.networks[1].name() == "discriminator";
  }
  double optimizer_seconds(double params, std::int64_t tensors) const;
  TrainingMemory stage_memory(int stage) const;
};

void StepBuilder::cost_stages() {
  const std::vector<std::size_t> cuts = partition_by_time(costs_, layout_.virtual_stages());
  const double share = 1.0 / layout_.cp;  // context parallelism: each GPU takes 1/cp of the tokens
  for (int v = 0; v < layout_.virtual_stages(); ++v) {
    StageCost s;
    s.first = cuts[v], s.last = cuts[v + 1];
    std::string unit;
    double unit_activations = 0;
    for (std::size_t i = s.first; i < s.last; ++i) {
      const LayerCost& c = costs_[i];
      s.forward_s += c.forward_s * share;
      s.backward_s += c.backward_s * share;
      s.forward_flops += c.forward_flops;
      s.params += c.params;
      s.tensors += c.tensors;
      if (tp_) {
        s.tp_forward_s += tp_->time(CollectiveOp::allreduce, c.tp.forward_bytes * share);
        s.tp_backward_s += tp_->time(CollectiveOp::allreduce, c.tp.backward_bytes * share);
      }
      if (cp_ && c.node->layer->type() == "attention") {
        // Ring attention: the other ranks' keys and values (twice the input width at most) arrive while
        // the local blocks compute; only what the compute does not cover is exposed.
        const double kv = 2 * c.input_bytes * share;
        s.tp_forward_s += std::max(0.0, cp_->time(CollectiveOp::allgather, kv) - c.forward_s * share);
        s.tp_backward_s += std::max(0.0, cp_->time(CollectiveOp::reducescatter, kv) - c.backward_s * share);
      }
      if (run_.activation_checkpointing) {
        if (c.unit != unit) {  // a new checkpoint unit: its input is kept, the rest recomputed in backward
          s.activations += c.input_bytes * share;
          s.checkpoint_working_set = std::max(s.checkpoint_working_set, unit_activations);
          unit_activations = 0;
          unit = c.unit;
        }
        unit_activations += c.activation_bytes * share;
      } else {
        s.activations += c.activation_bytes * share;
      }
    }
    s.checkpoint_working_set = std::max(s.checkpoint_working_set, unit_activations);
    if (run_.activation_checkpointing) s.recompute_s = s.forward_s;
    // What crosses the cut: every output of this stage that a later layer reads (skip connections too).
    for (std::size_t i = s.first; i < s.last; ++i) {
      bool read_later = false;
      for (std::size_t j = s.last; j < costs_.size() && !read_later; ++j) {
        if (costs_[j].network != costs_[i].network) continue;
        for (int in : costs_[j].node->inputs) read_later |= in == costs_[i].index;
      }
      if (read_later) s.send_bytes += costs_[i].output_bytes * share;
    }
    stages_.push_back(s);
  }
}

void StepBuilder::plan_groups() {
  dp_gpus_.assign(layout_.pp, {});
  // Context-parallel ranks hold the same weights, so gradients are reduced over dp x cp (Megatron's
  // data-parallel-with-context group), one group per tp rank.
  for (int s = 0; s < layout_.pp; ++s) {
    for (int r = 0; r < layout_.tp; ++r) {
      std::vector<int> gpus;
      for (int d = 0; d < layout_.dp; ++d) {
        for (int c = 0; c < layout_.cp; ++c) gpus.push_back(layout_.gpu(s, d, r, c));
      }
      dp_gpus_[s].push_back(std::move(gpus));
    }
  }
}

// Megatron's scatter/gather: each of the tp x cp GPUs sends its share over its own path (its own rail
// between nodes, as far as the node has rails), then the tp group all-gathers the pieces.
double StepBuilder::p2p_seconds(int from_v, int to_v, double bytes) {
  if (bytes <= 0) return 0;
  Simulator sim;
  FairShare solver(sim);
  const ClusterFabric fabric(solver, cluster_.node, cluster_.nodes, cluster_.gpus_per_node, cluster_.network,
                             cluster_.topology);
  const int a = layout_.gpu(from_v % layout_.pp, 0, 0, 0), b = layout_.gpu(to_v % layout_.pp, 0, 0, 0);
  const Hop& hop = fabric.route(a, b, 0);
  const int senders = layout_.tp * layout_.cp;
  const double parallel = hop.inter_node ? std::min(senders, std::max(1, fabric.rails())) : senders;
  double t = hop.latency_s + bytes / (hop.bandwidth * parallel);
  if (tp_) t += tp_->time(CollectiveOp::allgather, bytes / layout_.cp);
  return t;
}

// Consecutive layers of a stage grouped until their gradients (or parameters) reach bucket_bytes; with
// by_unit, cuts fall only between checkpoint units (FSDP wraps whole blocks).
std::vector<Bucket> StepBuilder::buckets(const StageCost& s, double bucket_bytes, bool by_unit) const {
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

double StepBuilder::optimizer_seconds(double params, std::int64_t tensors) const {
  const double shard = run_.zero >= 1 ? static_cast<double>(layout_.replicas()) : 1.0;
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

// A GAN step. Plain GANs (the DCGAN example, Keras): d_steps discriminator updates (the generator makes a
// batch of fakes; the discriminator runs forward and backward on fakes and reals), then one generator
// update (generator forward, discriminator forward and input gradient, generator backward). Each update
// all-reduces its network's gradients over the data-parallel group before its optimizer step.
// With a GanRecipe (StyleGAN2-ADA, training/training_loop.py and loss.py) one step is a lazy-regularization
// cycle of gan_iterations() iterations, each running the phases in the code's order: Gmain, Greg (every
// pl_interval), Dmain (d_steps times), Dreg (every r1_interval), each with its own all-reduce and Adam
// step, then G_ema. Every discriminator input goes through the augmentation pipeline; layers of blocks
// below the fp16 resolutions are costed in fp32, and parameters and gradients stay fp32.
void StepBuilder::build_gan() {
  if (layout_.virtual_stages() > 1 || layout_.tp > 1 || layout_.cp > 1) {
    throw std::invalid_argument(model_.name + ": a GAN trains data-parallel only (tp, pp and cp must be 1)");
  }
  const GanRecipe& recipe = run_.gan;
  const bool mixed_blocks = recipe.fp16_resolutions >= 0;
  const bool stylegan = recipe.regularized() || recipe.augment || recipe.weight_average || mixed_blocks;
  const Network& dnet = model_.networks[1];
  std::int64_t image_res = 0, image_channels = 0;
  for (const LayerNode& n : dnet.nodes()) {
    if (!n.layer && n.output.size() == 3) {
      image_channels = n.output[0], image_res = n.output[1];
      break;
    }
  }
  struct Net {
    double forward = 0, backward_data = 0, backward_weight = 0, backward = 0, params = 0;
    double input_gradient = 0;  // the first layer's data gradient (fed by the image: layer_costs leaves it out)
    std::int64_t tensors = 0, buffers = 0;
  };
  // Per-network sums at `batch` samples, each layer in the precision its block runs in.
  auto networks_at = [&](std::int64_t batch) {
    std::vector<LayerCost> costs = costs_;
    if (batch != run_.micro_batch || mixed_blocks) {
      TrainingRun r = run_;
      r.micro_batch = batch;
      costs = training_detail::layer_costs(model_, gpu_, r);
      if (mixed_blocks && r.precision != Precision::fp32) {
        r.precision = Precision::fp32;
        const std::vector<LayerCost> fp32 = training_detail::layer_costs(model_, gpu_, r);
        for (std::size_t i = 0; i < costs.size(); ++i) {
          const std::int64_t res = training_detail::block_resolution(costs[i].node->name);
          if (!training_detail::block_in_fp16(res, image_res, recipe.fp16_resolutions)) costs[i] = fp32[i];
        }
      }
    }
    std::array<Net, 2> nets;
    std::array<bool, 2> first{true, true};
    for (const LayerCost& c : costs) {
      Net& n = nets[c.network == 0 ? 0 : 1];
      n.forward += c.forward_s, n.backward_data += c.backward_data_s, n.backward_weight += c.backward_weight_s;
      n.backward += c.backward_s, n.params += c.params;
      // PyTorch parameter tensors: a modulated convolution holds affine weight and bias, weight, bias and
      // the noise strength; others their weight and bias (layer_costs counts two everywhere).
      const std::string type = c.node->layer->type();
      n.tensors += type == "modulated_conv2d" ? 5 : type == "learned_constant" ? 1 : c.tensors;
      if (type == "modulated_conv2d") n.buffers += 2;  // noise_const and resample_filter
      if (first[c.network == 0 ? 0 : 1]) n.input_gradient = c.forward_s;  // a dgrad is the size of its forward
      first[c.network == 0 ? 0 : 1] = false;
    }
    return nets;
  };
  const std::int64_t b = run_.micro_batch;
  const std::array<Net, 2> nets = networks_at(b);
  const Net &g = nets[0], &d = nets[1];
  const StreamId stream = compute_stream(0);
  const double grad_bytes = mixed_blocks ? 4.0 : gradient_bytes_per_param(run_.precision);
  const int m = run_.microbatches;
  const double aug_f = recipe.augment ? issue_time(gpu_, training_detail::augment_forward(b, image_channels, image_res), run_.issue) : 0;
  const double aug_b = recipe.augment ? issue_time(gpu_, training_detail::augment_backward(b, image_channels, image_res), run_.issue) : 0;
  auto update_seconds = [&](const Net& net) {
    if (!stylegan) return optimizer_seconds(net.params, net.tensors);
    // fp32 parameters (no master copy); misc.nan_to_num on each gradient first.
    std::vector<Kernel> k = training_detail::sanitize_gradients(net.params, net.tensors);
    const std::vector<Kernel> adam = optimizer_step(OptimizerStep{
        run_.optimizer, run_.optimizer_impl, net.params,
        std::clamp<std::int64_t>(net.tensors, 1, std::max<std::int64_t>(1, static_cast<std::int64_t>(net.params))),
        Precision::fp32});
    k.insert(k.end(), adam.begin(), adam.end());
    return net.params >= 1 ? issue_time(gpu_, k, run_.issue) : 0.0;
  };
  pass_ops_.assign(1, {});
  auto op = [&](const std::string& name, double seconds) { return fixed(name, seconds, stream, kComputeTag); };
  auto update = [&](const std::string& who, const Net& net, OpId after) {
    OpId reduce = kNoOp;
    if (layout_.replicas() > 1 && net.params > 0) {
      reduce = collective(who + "_grad_allreduce", CollectiveOp::allreduce, net.params * grad_bytes, 0);
      graph_.add_dependency(after, reduce);
    }
    const OpId opt = fixed(who + "_optimizer", update_seconds(net), stream, kOptimizerTag);
    if (reduce != kNoOp) graph_.add_dependency(reduce, opt);
  };

  auto generator_update = [&](const std::string& it) {
    OpId last = kNoOp;
    for (int mb = 0; mb < m; ++mb) {
      const std::string id = it + ".mb" + std::to_string(mb);
      op("g_main.g_forward" + id, g.forward);
      if (aug_f > 0) op("g_main.augment" + id, aug_f);
      op("g_main.d_forward" + id, d.forward);
      op("g_main.d_input_gradient" + id, d.backward_data + d.input_gradient + aug_b);
      last = op("g_main.g_backward" + id, g.backward);
    }
    update("generator" + it, g, last);
  };
  // Path length: G forward at the shrunk batch, pl_grads = its data gradient with create_graph (no weight
  // gradients: conv2d_gradfix.no_weight_gradients), then the backward of that double graph. Each backward-
  // data convolution is linear in its incoming gradient and its weight, so its own backward is a forward
  // convolution plus a weight-gradient one; the forward graph's backward adds data and weight gradients:
  // forward + data gradient + 2 weight gradients.
  auto generator_regularization = [&](const std::string& it) {
    const std::int64_t shrunk = std::max<std::int64_t>(1, b / std::max(1, recipe.pl_batch_shrink));
    const Net gh = shrunk == b ? g : networks_at(shrunk)[0];
    OpId last = kNoOp;
    for (int mb = 0; mb < m; ++mb) {
      const std::string id = it + ".mb" + std::to_string(mb);
      op("g_reg.g_forward" + id, gh.forward);
      op("g_reg.pl_gradients" + id, gh.backward_data);
      last = op("g_reg.double_backward" + id, gh.forward + gh.backward_data + 2 * gh.backward_weight);
    }
    update("generator_reg" + it, g, last);
  };
  auto discriminator_update = [&](const std::string& it) {
    for (int step = 0; step < run_.d_steps; ++step) {
      OpId last = kNoOp;
      for (int mb = 0; mb < m; ++mb) {
        const std::string id = it + "." + std::to_string(step) + ".mb" + std::to_string(mb);
        op("d_main.g_forward" + id, g.forward);
        if (aug_f > 0) op("d_main.augment_fake" + id, aug_f);
        op("d_main.d_forward_fake" + id, d.forward);
        op("d_main.d_backward_fake" + id, d.backward);
        if (aug_f > 0) op("d_main.augment_real" + id, aug_f);
        op("d_main.d_forward_real" + id, d.forward);
        last = op("d_main.d_backward_real" + id, d.backward);
      }
      update("discriminator" + it + "." + std::to_string(step), d, last);
    }
  };
  // R1: D on augmented reals, r1_grads = the gradient down to the image with create_graph, then the
  // backward of that graph as for the path length (the augmentation's backward differentiated once more
  // is its forward).
  auto discriminator_regularization = [&](const std::string& it) {
    OpId last = kNoOp;
    for (int mb = 0; mb < m; ++mb) {
      const std::string id = it + ".mb" + std::to_string(mb);
      if (aug_f > 0) op("d_reg.augment" + id, aug_f);
      op("d_reg.d_forward" + id, d.forward);
      op("d_reg.r1_gradients" + id, d.backward_data + d.input_gradient + aug_b);
      last = op("d_reg.double_backward" + id,
                d.forward + d.backward_data + d.input_gradient + 2 * d.backward_weight + aug_f);
    }
    update("discriminator_reg" + it, d, last);
  };

  const int iterations = gan_iterations(recipe);
  const double fetch_s =
      stylegan ? issue_time(gpu_, {elementwise_kernel("reals_to_float", static_cast<double>(b * image_channels * image_res * image_res), 1,
                                                      {{1, false}, {4, true}}),
                                   elementwise_kernel("latents_randn", static_cast<double>(b) * 512 * 4, 8, {{4, true}})},
                           run_.issue)
               : 0;
  const double ema_s = recipe.weight_average
                           ? issue_time(gpu_, training_detail::weight_average(g.params, g.tensors, g.buffers), run_.issue)
                           : 0;
  for (int i = 0; i < iterations; ++i) {
    std::string it;  // appended, not "." + to_string (GCC 12's false -Wrestrict)
    if (iterations > 1) it.append(".").append(std::to_string(i));
    if (!stylegan) {  // the plain order: discriminator first
      discriminator_update(it);
      generator_update(it);
      continue;
    }
    if (fetch_s > 0) op("fetch" + it, fetch_s);
    generator_update(it);
    if (recipe.pl_interval > 0 && i % recipe.pl_interval == 0) generator_regularization(it);
    discriminator_update(it);
    if (recipe.r1_interval > 0 && i % recipe.r1_interval == 0) discriminator_regularization(it);
    if (ema_s > 0) fixed("g_ema" + it, ema_s, stream, kOptimizerTag);
  }
  graph_.finalize();
}

void StepBuilder::build() {
  if (is_gan()) return build_gan();
  const int pp = layout_.pp, vp = layout_.vp, V = layout_.virtual_stages(), m = run_.microbatches;
  const bool data_parallel = layout_.replicas() > 1;
  const double grad_bytes = gradient_bytes_per_param(run_.precision);
  const double weight_bytes = weight_bytes_per_param(run_.precision);
  const bool zero3 = run_.zero >= 3;
  // Ops that start (first) and end (last) each pass, to wire the stages together afterwards.
  std::vector<std::vector<OpId>> f_first(V, std::vector<OpId>(m)), f_last = f_first, b_first = f_first, b_last = f_first;
  pass_ops_.assign(pp, {});
  std::vector<std::vector<OpId>> stage_reductions(pp);

  for (int s = 0; s < pp; ++s) {
    const std::vector<PipelinePass> order = pipeline_order(run_.schedule, s, pp, m, vp);
    std::vector<int> backwards_left(vp, m);
    for (const PipelinePass& pass : order) {
      const int v = pass.chunk * pp + s;
      const StageCost& c = stages_[v];
      const std::string id = std::to_string(v) + ".mb" + std::to_string(pass.microbatch);
      const StreamId stream = compute_stream(s);
      auto add = [&](OpId op, OpId& first) {
        if (first == kNoOp) first = op;
        pass_ops_[s].push_back(op);
        return op;
      };
      OpId first = kNoOp, last = kNoOp;
      if (pass.forward) {
        if (zero3) {  // FSDP: gather each unit's parameters just before its forward
          for (const Bucket& u : buckets(c, run_.bucket_bytes, true)) {
            const OpId gather = collective("fwd_allgather." + id, CollectiveOp::allgather, u.params * weight_bytes, s);
            double t = 0;
            for (std::size_t i = u.first; i < u.last; ++i) t += costs_[i].forward_s / layout_.cp;
            last = add(fixed("fwd." + id, t, stream, kComputeTag), first);
            graph_.add_dependency(gather, last);
          }
        } else {
          last = add(fixed("fwd.stage" + id, c.forward_s, stream, kComputeTag), first);
        }
        if (c.tp_forward_s > 0) last = add(fixed("fwd_tp_comm." + id, c.tp_forward_s, stream, kCommunicationTag), first);
        f_first[v][pass.microbatch] = first, f_last[v][pass.microbatch] = last;
        continue;
      }
      const bool final_backward = --backwards_left[pass.chunk] == 0;
      if (c.recompute_s > 0) last = add(fixed("recompute." + id, c.recompute_s, stream, kComputeTag), first);
      if (zero3) {
        std::vector<Bucket> units = buckets(c, run_.bucket_bytes, true);
        for (auto u = units.rbegin(); u != units.rend(); ++u) {
          const OpId gather = collective("bwd_allgather." + id, CollectiveOp::allgather, u->params * weight_bytes, s);
          double t = 0;
          for (std::size_t i = u->first; i < u->last; ++i) t += costs_[i].backward_s / layout_.cp;
          last = add(fixed("bwd." + id, t, stream, kComputeTag), first);
          graph_.add_dependency(gather, last);
          const OpId scatter = collective("grad_reduce_scatter." + id, CollectiveOp::reducescatter, u->params * grad_bytes, s);
          graph_.add_dependency(last, scatter);
          stage_reductions[s].push_back(scatter);
        }
      } else if (final_backward && data_parallel && pp == 1 && run_.overlap_gradient_reduce) {
        // DDP: gradients are reduced bucket by bucket while the rest of backward runs.
        std::vector<Bucket> bs = buckets(c, run_.bucket_bytes, false);
        const CollectiveOp op = run_.zero >= 1 ? CollectiveOp::reducescatter : CollectiveOp::allreduce;
        for (auto b = bs.rbegin(); b != bs.rend(); ++b) {
          double t = 0;
          for (std::size_t i = b->first; i < b->last; ++i) t += costs_[i].backward_s / layout_.cp;
          last = add(fixed("bwd." + id, t, stream, kComputeTag), first);
          if (b->params <= 0) continue;
          const OpId reduce = collective("grad_bucket." + std::to_string(stage_reductions[s].size()), op,
                                         b->params * grad_bytes, s);
          graph_.add_dependency(last, reduce);
          stage_reductions[s].push_back(reduce);
        }
      } else {
        last = add(fixed("bwd.stage" + id, c.backward_s, stream, kComputeTag), first);
      }
      if (c.tp_backward_s > 0) last = add(fixed("bwd_tp_comm." + id, c.tp_backward_s, stream, kCommunicationTag), first);
      if (final_backward && data_parallel && (pp > 1 || !run_.overlap_gradient_reduce) && c.params > 0) {
        // Megatron: each chunk's gradients are reduced over the data-parallel group after the pipeline flush.
        const CollectiveOp op = run_.zero >= 1 ? CollectiveOp::reducescatter : CollectiveOp::allreduce;
        const OpId reduce = collective("grad_reduce.stage" + std::to_string(v), op, c.params * grad_bytes, s);
        graph_.add_dependency(last, reduce);
        stage_reductions[s].push_back(reduce);
      }
      b_first[v][pass.microbatch] = first, b_last[v][pass.microbatch] = last;
    }
  }

  // Activations forward and gradients backward between consecutive virtual stages.
  for (int v = 0; v + 1 < V; ++v) {
    const double t = p2p_seconds(v, v + 1, stages_[v].send_bytes);
    for (int mb = 0; mb < m; ++mb) {
      const std::string id = std::to_string(v) + ".mb" + std::to_string(mb);
      const OpId send = fixed("send_activations." + id, t, p2p_stream(v, true), kCommunicationTag);
      graph_.add_dependency(f_last[v][mb], send);
      graph_.add_dependency(send, f_first[v + 1][mb]);
      const OpId back = fixed("send_gradients." + id, t, p2p_stream(v, false), kCommunicationTag);
      graph_.add_dependency(b_last[v + 1][mb], back);
      graph_.add_dependency(back, b_first[v][mb]);
    }
  }

  // The update, per pipeline stage, once its gradients are reduced; ZeRO-1/2 then gather the parameters.
  for (int s = 0; s < pp; ++s) {
    double params = 0;
    std::int64_t tensors = 0;
    for (int c = 0; c < vp; ++c) params += stages_[c * pp + s].params, tensors += stages_[c * pp + s].tensors;
    const OpId update = fixed("optimizer.stage" + std::to_string(s), optimizer_seconds(params, tensors),
                              compute_stream(s), kOptimizerTag);
    for (OpId r : stage_reductions[s]) graph_.add_dependency(r, update);
    if (data_parallel && (run_.zero == 1 || run_.zero == 2) && params > 0) {
      const OpId gather = collective("param_allgather.stage" + std::to_string(s), CollectiveOp::allgather,
                                     params * weight_bytes, s);
      graph_.add_dependency(update, gather);
    }
  }
  graph_.finalize();
}

TrainingMemory StepBuilder::stage_memory(int s) const {
  double params = 0, activations = 0, working = 0;
  for (int c = 0; c < layout_.vp; ++c) {
    const StageCost& st = stages_[c * layout_.pp + s];
    params += st.params;
    activations += st.activations;
    working = std::max(working, st.checkpoint_working_set);
  }
  const double dp = layout_.replicas();
  TrainingMemory mem;
  mem.weights = params * weight_bytes_per_param(run_.precision) / (run_.zero >= 3 ? dp : 1);
  mem.gradients = params * gradient_bytes_per_param(run_.precision) / (run_.zero >= 2 ? dp : 1);
  mem.optimizer_state = params * state_bytes_per_param(run_) / (run_.zero >= 1 ? dp : 1);
  const double in_flight = microbatches_in_flight(run_.schedule, s, layout_.pp, run_.microbatches, layout_.vp);
  mem.activations = activations * in_flight + working;
  // Backward holds a layer's output gradient and its input gradient at once; DDP keeps its reduction
  // buckets as flat copies of the gradients they carry (two in flight).
  double largest = 0;
  for (int c = 0; c < layout_.vp; ++c) {
    const StageCost& st = stages_[c * layout_.pp + s];
    for (std::size_t i = st.first; i < st.last; ++i) largest = std::max(largest, costs_[i].output_bytes + costs_[i].input_bytes);
  }
  mem.workspace = largest / layout_.cp;
  if (layout_.replicas() > 1 && run_.zero < 3 && run_.overlap_gradient_reduce && layout_.pp == 1) {
    mem.workspace += std::min(2 * run_.bucket_bytes, params * gradient_bytes_per_param(run_.precision));
  }
  return mem;
}

ModelStepReport StepBuilder::simulate() {
  costs_ = training_detail::layer_costs(model_, gpu_, run_);
  if (layout_.tp > 1) {
    bool splits = false;
    for (const LayerCost& c : costs_) splits |= c.node->layer->tensor_split() != TensorSplit::none;
    if (!splits) {
      throw std::invalid_argument("tp " + std::to_string(layout_.tp) + ": " + model_.name +
                                  " has no tensor-parallel layers (Megatron splits attention and MLP blocks)");
    }
    std::vector<int> gpus;
    for (int r = 0; r < layout_.tp; ++r) gpus.push_back(layout_.gpu(0, 0, r, 0));
    tp_.emplace(cluster_, gpus);
  }
  if (layout_.cp > 1) {
    std::vector<int> gpus;
    for (int c = 0; c < layout_.cp; ++c) gpus.push_back(layout_.gpu(0, 0, 0, c));
    cp_.emplace(cluster_, gpus);
  }
  cost_stages();
  plan_groups();
  build();

  Simulator sim;
  FairShare fair_share(sim);
  const ClusterFabric fabric(fair_share, cluster_.node, cluster_.nodes, cluster_.gpus_per_node, cluster_.network,
                             cluster_.topology);
  std::vector<std::vector<CollectiveGroup>> groups(dp_gpus_.size());
  for (std::size_t s = 0; s < dp_gpus_.size(); ++s) {
    for (const std::vector<int>& gpus : dp_gpus_[s]) groups[s].push_back(CollectiveGroup::of(fabric, gpus));
  }
  // Repeated steps replay only while one collective has the fabric to itself.
  const bool alone = layout_.pp == 1 && run_.zero < 3 && layout_.tp * layout_.cp == 1;
  Executor executor(sim, graph_);
  // A compute op that starts while its GPU runs a data-parallel collective gets the SMs NCCL leaves it.
  std::vector<int> collectives_in_flight(static_cast<std::size_t>(layout_.pp), 0);
  const double sms = gpu_.sm_count;
  const double contended = sms / (sms - cluster_.node.collective_sms);
  executor.set_fixed_duration(kFixedDuration, [&](OpId op) {
    double t = seconds_[graph_.payload(op)];
    const StreamId stream = graph_.stream(op);
    if (graph_.tag(op) == kComputeTag && stream < static_cast<StreamId>(layout_.pp) && collectives_in_flight[stream] > 0) {
      t *= contended;
    }
    return Time::seconds(t);
  });
  executor.set_handler(kCollective, [&](OpId op, Completion done) {
    const Call& call = calls_[graph_.payload(op)];
    CollectiveRequest request;
    request.op = call.op;
    request.bytes = call.bytes;
    request.replay_repeated_steps = alone;
    // Every tp x cp rank's group reduces its own shard at once; the op ends with the last of them.
    auto left = std::make_shared<int>(static_cast<int>(groups[call.stage].size()));
    int& in_flight = collectives_in_flight[call.stage];
    ++in_flight;
    for (const CollectiveGroup& group : groups[call.stage]) {
      start_collective(sim, fair_share, fabric, group, request, [left, done, &in_flight](const CollectiveStats&) {
        if (--*left > 0) return;
        --in_flight;
        done();
      });
    }
  });
  const Time makespan = executor.run();
  const CriticalPath path = critical_path(executor);

  ModelStepReport report;
  report.stages = layout_.pp;
  report.gradient_buckets = collectives_issued_;
  for (OpId op = 0; op < graph_.size(); ++op) {
    if (graph_.type(op) == kCollective) report.allreduce_time_s += (executor.op_end(op) - executor.op_start(op)).to_seconds();
  }
  double forward_flops = 0;
  for (const StageCost& s : stages_) forward_flops += s.forward_flops;
  const double model_parallel = static_cast<double>(layout_.tp) * layout_.pp * layout_.cp;
  report.model_flops = 3 * forward_flops * run_.microbatches / model_parallel;
  double samples_per_step = static_cast<double>(run_.micro_batch) * run_.microbatches * layout_.dp;
  if (is_gan()) {
    // Forward-FLOP units per microbatch and iteration: each discriminator update G_f + 2 (D_f + 2 D_f),
    // the generator update G_f + D_f + D_f (input gradient) + 2 G_f; path length (at the shrunk batch)
    // and R1 each a forward, a data gradient and a double backward, 2 (F + 2F). A step is a cycle of
    // gan_iterations(), each consuming d_steps batches of real images.
    double gf = 0, df = 0;
    for (const LayerCost& c : costs_) (c.network == 0 ? gf : df) += c.forward_flops;
    const GanRecipe& gan = run_.gan;
    const int iterations = gan_iterations(gan);
    double flops = iterations * (run_.d_steps * (gf + 6 * df) + 3 * gf + 2 * df);
    if (gan.pl_interval > 0) {
      const double shrunk = static_cast<double>(std::max<std::int64_t>(1, run_.micro_batch / std::max(1, gan.pl_batch_shrink)));
      flops += (iterations / gan.pl_interval) * 6 * gf * shrunk / static_cast<double>(run_.micro_batch);
    }
    if (gan.r1_interval > 0) flops += (iterations / gan.r1_interval) * 6 * df;
    report.model_flops = flops * run_.microbatches;
    samples_per_step *= run_.d_steps * iterations;
  }
  report.hardware_flops = report.model_flops * (run_.activation_checkpointing ? 4.0 / 3.0 : 1.0);

  // Memory: the stage that needs the most.
  for (int s = 0; s < layout_.pp; ++s) {
    const TrainingMemory mem = stage_memory(s);
    if (mem.total() > report.memory.total()) report.memory = mem;
  }

  StepResult& r = report.result;
  r.gpus = layout_.gpus();
  r.step_time_s = makespan.to_seconds();
  r.training_time_s = r.step_time_s;
  r.samples_per_s = samples_per_step / r.step_time_s;
  r.tflops_per_gpu = report.model_flops / r.step_time_s / 1e12;
  r.mfu = r.tflops_per_gpu * 1e12 / gpu_.peak(run_.precision);
  r.hardware_tflops_per_gpu = report.hardware_flops / r.step_time_s / 1e12;
  r.layout = {layout_.dp, layout_.tp, layout_.pp, layout_.vp, layout_.cp, run_.microbatches,
              static_cast<double>(run_.micro_batch) * run_.microbatches * layout_.dp};
  double compute = path.time_by_tag[kComputeTag].to_seconds();
  double communication = path.time_by_tag[kCommunicationTag].to_seconds();
  r.breakdown.optimizer = path.time_by_tag[kOptimizerTag].to_seconds();
  r.breakdown.other = path.waiting.to_seconds();

  // Pipeline bubble: the pipeline phase minus the time an average stage is busy with its passes; the
  // critical path counts that time as the other stages' compute, so it is taken from there.
  if (layout_.pp > 1) {
    double phase = 0, busy = 0;
    for (int s = 0; s < layout_.pp; ++s) {
      for (OpId op : pass_ops_[s]) {
        busy += (executor.op_end(op) - executor.op_start(op)).to_seconds();
        phase = std::max(phase, executor.op_end(op).to_seconds());
      }
    }
    busy /= layout_.pp;
    const double bubble = std::clamp(phase - busy, 0.0, compute + communication);
    report.pipeline_bubble_fraction = phase > 0 ? bubble / phase : 0;
    const double on_path = compute + communication;
    if (on_path > 0) {
      compute -= bubble * compute / on_path;
      communication -= bubble * communication / on_path;
    }
    r.breakdown.pipeline_bubble = bubble;
    r.pipeline_bubble_fraction = report.pipeline_bubble_fraction;
  }
  r.breakdown.compute = compute;
  r.breakdown.communication_exposed = communication;
  r.memory_per_gpu_bytes = report.memory.total();
  r.memory = MemoryBreakdown{report.memory.weights, report.memory.gradients, report.memory.optimizer_state,
                             report.memory.activations, report.memory.workspace};
  r.fits_in_memory = r.memory_per_gpu_bytes <= gpu_.memory_bytes();
  r.events = sim.events_processed();
  if (run_.record_timeline) {
    const int pp = layout_.pp, V = layout_.virtual_stages();
    for (OpId op = 0; op < graph_.size(); ++op) {
      const StreamId st = graph_.stream(op);
      std::string lane;
      if (st < pp) {
        lane = "stage " + std::to_string(st) + " compute";
      } else if (st < 2 * pp) {
        lane = "stage " + std::to_string(st - pp) + " data-parallel";
      } else {
        const int v = (st - 2 * pp) % V;
        const bool forward = st - 2 * pp < V;
        lane = "p2p " + std::to_string(forward ? v : v + 1) + "->" + std::to_string(forward ? v + 1 : v) +
               (forward ? " activations" : " gradients");
      }
      const OpTag tag = graph_.tag(op);
      report.timeline.push_back({graph_.name(op), lane,
                                 tag == kComputeTag ? "compute" : tag == kOptimizerTag ? "optimizer" : "communication",
                                 executor.op_start(op).to_seconds(), executor.op_end(op).to_seconds()});
    }
  }
  return report;
}

// Tokens each sample carries: the steps of the first network's token-id input (one feeding an
// embedding); none for models without one.
std::int64_t tokens_per_sample(const Model& model) {
  if (model.tokens_per_sample > 0) return model.tokens_per_sample;
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

ModelStepReport simulate_training_step(const Model& model, const ClusterConfig& cluster, const TrainingRun& run) {
  ModelStepReport report = StepBuilder(model, cluster, run).simulate();
  if (const std::int64_t tokens = tokens_per_sample(model); tokens > 0) {
    report.result.tokens_per_s = report.result.samples_per_s * static_cast<double>(tokens);
  }
  return report;
}

ModelStepReport simulate_model_training_step(const Model& model, const ClusterConfig& cluster,
                                             const DataParallelRun& run) {
  if (run.batch_per_gpu < 1) throw std::invalid_argument("batch_per_gpu must be at least 1");
  const int dp = run.dp == 0 ? cluster.gpus() : run.dp;
  if (dp < 1 || dp > cluster.gpus()) {
    throw std::invalid_argument("dp " + std::to_string(dp) + " outside 1.." + std::to_string(cluster.gpus()) +
                                " (the cluster's GPUs)");
  }
  TrainingRun t;
  t.micro_batch = run.batch_per_gpu;
  t.dp = dp;
  t.precision = run.precision;
  t.optimizer = run.optimizer;
  t.optimizer_impl = run.optimizer_impl;
  t.bucket_bytes = run.bucket_bytes;
  return simulate_training_step(model, cluster, t);
}

}  // namespace hpcsim

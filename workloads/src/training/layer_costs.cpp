#include "layer_costs.h"

#include <algorithm>

#include "models/gpu/ops/op_kernel.h"
#include "workloads/training/training_memory.h"

namespace hpcsim::training_detail {

namespace {

// Megatron's sequence-parallel region (Korthikanti et al. 2022, section 4.2.2): layers outside the
// tensor-parallel blocks that work token by token (norms, dropout, residual adds, activations) on
// unsharded inputs run on 1/tp of the sequence, since between the row-parallel output (reduce-scattered
// over the sequence) and the next column-parallel input (all-gathered) every rank holds its own tokens.
// Batch norm reduces over positions, so it is not token by token.
bool in_sequence_parallel_region(const Network& net, std::size_t node, const std::vector<bool>& sharded) {
  const LayerNode& n = net.nodes()[node];
  if (!n.layer || n.layer->tensor_split() != TensorSplit::none) return false;
  const LayerTraits t = n.layer->traits();
  if (t.batch_statistics) return false;
  if (!t.elementwise_forward && !t.normalization) return false;
  for (std::size_t k = 0; k < n.inputs.size(); ++k) {
    if (sharded[n.inputs[k]] || n.input_shapes[k].size() < 2) return false;
  }
  return !n.input_shapes.empty() && n.output == n.input_shapes[0];
}

// A ReLU runs in place (torchvision's inplace=True, cuDNN's fused activations): the one tensor it keeps
// is its output, which a consumer that keeps its input already holds; counted there, not twice.
bool relu_output_held_by_consumer(const Network& net, std::size_t node) {
  const LayerNode& n = net.nodes()[node];
  if (!n.layer || !n.layer->traits().in_place) return false;
  for (const LayerNode& c : net.nodes()) {
    if (!c.layer || !c.layer->traits().keeps_input) continue;
    for (int in : c.inputs) {
      if (in == static_cast<int>(node)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<LayerCost> layer_costs(const Model& model, const GpuSpec& gpu, const TrainingStepConfig& run) {
  const bool op_by_op = run.fusion == FusionScope::none;
  LayerRun local{run.micro_batch, run.precision, run.layout.tp, run.channels_last, run.flash_attention,
                 run.linear_bias_epilogue, op_by_op};
  local.tuned_batch = run.tuned_batch;
  local.gemm_casts = true;  // Transformer Engine's casts around narrow-format GEMMs
  local.fp8_scaling = run.fp8_scaling;
  LayerRun whole = local;
  whole.tp = 1;
  const int sequence_shards = run.sequence_parallel ? run.layout.tp : 1;
  // Values passed between layers: bf16 under fp8 training, whose casts to fp8 happen inside the GEMM layers.
  const double e = bytes_per_element(between_gemms(run.precision));
  std::vector<LayerCost> costs;
  std::vector<LayerKernels> kernels;
  for (std::size_t netix = 0; netix < model.networks.size(); ++netix) {
    const Network& net = model.networks[netix];
    const std::vector<bool> sharded = tp_sharded_outputs(net, run.layout.tp);
    for (std::size_t i = 0; i < net.nodes().size(); ++i) {
      const LayerNode& n = net.nodes()[i];
      if (!n.layer) continue;
      Shapes in = n.input_shapes;  // what this GPU sees
      bool from_layer = false;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        const LayerNode& src = net.nodes()[n.inputs[k]];
        from_layer |= static_cast<bool>(src.layer);
        if (sharded[n.inputs[k]] && !in[k].empty()) in[k].back() = tp_shard_width(in[k].back(), run.layout.tp, n.layer->traits().input_parts);
      }
      const bool sequence_split = sequence_shards > 1 && in_sequence_parallel_region(net, i, sharded);
      if (sequence_split) {
        for (Shape& s : in) s[0] = (s[0] + sequence_shards - 1) / sequence_shards;
      }
      LayerRun at = local, at_whole = whole;  // the layer's own precision (fp8 only where it has fp8 GEMMs)
      at.precision = at_whole.precision = layer_precision(n.layer->traits(), run.precision);
      at.sequence_shards = sequence_shards;
      for (int input : n.inputs) {
        const LayerNode& src = net.nodes()[input];
        if (!src.layer) continue;
        const LayerTraits t = src.layer->traits();  // a layer or RMS norm (not softmax, not batch norm)
        at.input_from_norm |= t.normalization && t.keeps_input && !t.batch_statistics;
      }
      LayerCost c;
      c.node = &n;
      c.network = static_cast<int>(netix);
      c.index = static_cast<int>(i);
      c.unit = net.name() + "/" + n.name.substr(0, n.name.find('.'));
      c.forward_flops = n.layer->forward_flops(n.input_shapes, at_whole);
      c.tp = n.layer->tp_traffic(in, at);
      c.params = static_cast<double>(n.layer->params_per_rank(in, run.layout.tp));
      c.tensors = c.params > 0 ? 2 : 0;
      if (is_narrow_gemm_format(at.precision)) c.cast_weights = c.params;
      c.activation_bytes = relu_output_held_by_consumer(net, i) ? 0 : n.layer->activation_bytes(in, at);
      for (const Shape& s : in) c.input_bytes += static_cast<double>(elements(s)) * static_cast<double>(run.micro_batch) * e;
      c.output_bytes = static_cast<double>(elements(n.output)) * static_cast<double>(run.micro_batch) * e;
      c.local_output_bytes = c.output_bytes / (sharded[i] ? run.layout.tp : 1) / (sequence_split ? sequence_shards : 1);
      if (run.recompute == Recompute::selective) {
        CoreRecompute core = n.layer->core_recompute(gpu, in, at);
        c.recompute_bytes = std::min(core.activation_bytes, c.activation_bytes);
        c.activation_bytes -= c.recompute_bytes;
        c.recompute_flops = core.forward_flops;
        c.recompute_s = issue_time(gpu, core.forward, run.issue);
      }
      LayerKernels k = n.layer->kernels(gpu, in, at);
      if (!from_layer) k.backward_data.clear();  // fed only by network inputs: no input gradient to compute
      costs.push_back(std::move(c));
      kernels.push_back(std::move(k));
    }
  }
  if (run.fusion != FusionScope::none) fuse_elementwise_chains(kernels, fusion_layers(model), run.fusion);
  // One host thread issues a pass's kernels in order, running ahead of the GPU: each layer is charged
  // the time it adds to the stream.
  KernelIssue forward(gpu, run.issue);
  for (std::size_t i = 0; i < costs.size(); ++i) costs[i].forward_s = forward.issue(kernels[i].forward);
  KernelIssue backward(gpu, run.issue);
  for (std::size_t i = costs.size(); i-- > 0;) {
    costs[i].backward_data_s = backward.issue(kernels[i].backward_data);
    costs[i].backward_weight_s = backward.issue(kernels[i].backward_weight);
    costs[i].backward_s = costs[i].backward_data_s + costs[i].backward_weight_s;
  }
  return costs;
}

}  // namespace hpcsim::training_detail

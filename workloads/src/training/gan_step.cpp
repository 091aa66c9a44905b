// The GAN step: discriminator and generator updates, and StyleGAN2-ADA's lazy regularization cycle.
#include "step_planner.h"

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>

#include "gan_kernels.h"

namespace hpcsim::training_detail {

// A GAN step. Plain GANs (the DCGAN example, Keras): d_steps discriminator updates (the generator makes a
// batch of fakes; the discriminator runs forward and backward on fakes and reals), then one generator
// update (generator forward, discriminator forward and input gradient, generator backward). Each update
// all-reduces its network's gradients over the data-parallel group before its optimizer step.
// With a GanRecipe (StyleGAN2-ADA, training/training_loop.py and loss.py) one step is a lazy-regularization
// cycle of gan_iterations() iterations, each running the phases in the code's order: Gmain, Greg (every
// pl_interval), Dmain (d_steps times), Dreg (every r1_interval), each with its own all-reduce and Adam
// step, then G_ema. Every discriminator input goes through the augmentation pipeline; layers of blocks
// below the fp16 resolutions are costed in fp32, and parameters and gradients stay fp32.
void StepPlanner::build_gan() {
  if (plan_.layout.virtual_stages() > 1 || plan_.layout.tp > 1 || plan_.layout.cp > 1) {
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
      TrainingStepConfig r = run_;
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
      // PyTorch tensors as the layer declares them (layer_costs counts a weight and a bias everywhere).
      const LayerTraits traits = c.node->layer->traits();
      n.tensors += traits.parameter_tensors.value_or(c.tensors);
      n.buffers += traits.buffer_tensors;
      if (first[c.network == 0 ? 0 : 1]) n.input_gradient = c.forward_s;  // a dgrad is the size of its forward
      first[c.network == 0 ? 0 : 1] = false;
    }
    return nets;
  };
  const std::int64_t b = run_.micro_batch;
  const std::array<Net, 2> nets = networks_at(b);
  const Net &g = nets[0], &d = nets[1];
  const StreamId stream = plan_.compute_stream(0);
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
  plan_.pass_ops.assign(1, {});
  auto op = [&](const std::string& name, double seconds) { return fixed(name, seconds, stream, kComputeTag); };
  auto update = [&](const std::string& who, const Net& net, OpId after) {
    OpId reduce = kNoOp;
    if (plan_.layout.replicas() > 1 && net.params > 0) {
      reduce = collective(who + "_grad_allreduce", CollectiveOp::allreduce, net.params * grad_bytes, 0);
      plan_.graph.add_dependency(after, reduce);
    }
    const OpId opt = fixed(who + "_optimizer", update_seconds(net), stream, kOptimizerTag);
    if (reduce != kNoOp) plan_.graph.add_dependency(reduce, opt);
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
  plan_.graph.finalize();
}

}  // namespace hpcsim::training_detail

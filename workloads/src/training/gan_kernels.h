#pragma once
// Kernels a StyleGAN2-ADA iteration launches outside the networks' layers (training/augment.py,
// training_loop.py), and the block resolution that decides a layer's precision. Private to the step.
#include <cstdint>
#include <string>
#include <vector>

#include "models/gpu/ops/op_kernel.h"

namespace hpcsim::training_detail {

// The resolution of the StyleGAN block a layer is named after ("synthesis.b256.conv0", "b64.skip"), 0
// when its name has no b<res> component (the mapping network, the loss).
std::int64_t block_resolution(const std::string& layer_name);

// Whether a block at `res` runs in 16-bit for `fp16_resolutions` highest resolutions of an image of
// `image_res` (networks.py: fp16_resolution = max(2 ** (log2(image_res) + 1 - N), 8)).
bool block_in_fp16(std::int64_t res, std::int64_t image_res, int fp16_resolutions);

// ADA's 'bgc' pipeline on fp32 images [batch, channels, res, res]: forward, and the gradient with respect
// to its input (needed when the input needs one: fakes in the generator update, reals under R1).
std::vector<Kernel> augment_forward(std::int64_t batch, std::int64_t channels, std::int64_t res);
std::vector<Kernel> augment_backward(std::int64_t batch, std::int64_t channels, std::int64_t res);

// Per-parameter-tensor loops over fp32 parameters: misc.nan_to_num on every gradient before the update,
// and G_ema's p_ema.copy_(p.lerp(p_ema, beta)) plus the copy of each buffer.
std::vector<Kernel> sanitize_gradients(double params, std::int64_t tensors);
std::vector<Kernel> weight_average(double params, std::int64_t tensors, std::int64_t buffers);

}  // namespace hpcsim::training_detail

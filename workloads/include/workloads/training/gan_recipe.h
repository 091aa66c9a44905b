#pragma once
// What a GAN trainer runs besides the alternating updates: StyleGAN2-ADA's lazy regularization, its
// per-block mixed precision, the ADA augmentation of every discriminator input and the generator's
// weight average (github.com/NVlabs/stylegan2-ada-pytorch, training/training_loop.py and loss.py).
// The defaults switch everything off (a plain GAN such as DCGAN).
#include <algorithm>
#include <cstdint>
#include <numeric>

namespace hpcsim {

struct GanRecipe {
  int r1_interval = 0;         // R1 on reals, a double backward through D, every N iterations (0: never)
  int pl_interval = 0;         // path-length regularization, a double backward through G, every N
  int pl_batch_shrink = 2;     // ... on the micro batch divided by this
  int fp16_resolutions = -1;   // >= 0: only the N highest-resolution blocks (layers named b<res>) run in
                               // the run's 16-bit precision, the rest fp32, parameters fp32; -1: all layers
  bool augment = false;        // ADA's 'bgc' pipeline on every discriminator input
  bool weight_average = false; // G_ema: a lerp and a copy per generator parameter tensor every iteration

  bool regularized() const { return r1_interval > 0 || pl_interval > 0; }
  // Iterations of the lazy-regularization cycle (both regularizers fall on the same iteration once per
  // cycle), in 64 bits: lcm(2,147,483,647, 4) does not fit an int.
  std::int64_t cycle_iterations() const {
    return std::lcm(std::max<std::int64_t>(1, r1_interval), std::max<std::int64_t>(1, pl_interval));
  }
};

// train.py --cfg=auto --aug=ada: G_reg_interval 4, D_reg_interval 16, pl_batch_shrink 2, num_fp16_res 4,
// augpipe 'bgc', ema on.
inline GanRecipe stylegan2_ada_recipe() { return {16, 4, 2, 4, true, true}; }

}  // namespace hpcsim

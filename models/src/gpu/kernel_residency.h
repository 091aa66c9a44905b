#pragma once
// How many blocks of a launch are resident per SM. The one call site of the occupancy rules in the
// kernel model, so that the model follows whatever occupancy implementation models/gpu provides.
#include "models/gpu/gpu_spec.h"
#include "models/gpu/kernel_model.h"

namespace hpcsim {

struct Residency {
  int blocks_per_sm = 0;
  int warps_per_block = 0;
  double occupancy = 0;  // resident warps / maximum warps per SM
};

// Throws std::invalid_argument for a launch the GPU cannot run.
Residency resident_blocks(const GpuSpec& gpu, const KernelLaunch& launch);

}  // namespace hpcsim

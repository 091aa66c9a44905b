#include "kernel_residency.h"

#include <stdexcept>
#include <string>

#include "models/gpu/occupancy.h"

namespace hpcsim {

// The kernel model's one call into the occupancy rules (models/gpu/occupancy).
Residency resident_blocks(const GpuSpec& gpu, const KernelLaunch& launch) {
  if (launch.blocks < 1) {
    throw std::invalid_argument("a kernel needs at least one block (" + gpu.name + ")");
  }
  const Occupancy o = compute_occupancy(
      gpu.sm, LaunchResources{launch.threads_per_block, launch.registers_per_thread, launch.smem_per_block, {}});
  if (o.active_blocks_per_sm < 1) {
    throw std::invalid_argument("the launch's registers or shared memory do not fit one block on an SM (" +
                                gpu.name + ")");
  }
  return Residency{o.active_blocks_per_sm, o.active_warps_per_sm / o.active_blocks_per_sm, o.occupancy};
}

}  // namespace hpcsim

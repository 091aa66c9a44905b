#include "kernel_residency.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hpcsim {

namespace {
int round_up(int v, int unit) { return unit > 0 ? (v + unit - 1) / unit * unit : v; }
}  // namespace

// The CUDA occupancy rules (CUDA Programming Guide, compute-capability tables; cuda_occupancy.h):
// warps, blocks, registers per warp rounded to the allocation unit and split over the sub-partitions,
// shared memory rounded to the granularity plus the driver's per-block reserve, largest carveout.
Residency resident_blocks(const GpuSpec& gpu, const KernelLaunch& launch) {
  const SmLimits& sm = gpu.sm;
  const auto bad = [&](const std::string& what) {
    throw std::invalid_argument(what + " (" + gpu.name + ", compute capability " + gpu.compute_capability + ")");
  };
  if (launch.blocks < 1) bad("a kernel needs at least one block");
  if (launch.threads_per_block < 1 || launch.threads_per_block > sm.max_threads_per_block) {
    bad(std::to_string(launch.threads_per_block) + " threads per block; the limit is " +
        std::to_string(sm.max_threads_per_block));
  }
  if (launch.registers_per_thread < 0 || launch.registers_per_thread > sm.max_registers_per_thread) {
    bad(std::to_string(launch.registers_per_thread) + " registers per thread; the limit is " +
        std::to_string(sm.max_registers_per_thread));
  }
  if (launch.smem_per_block < 0 || launch.smem_per_block > sm.max_smem_per_block) {
    bad(std::to_string(launch.smem_per_block) + " bytes of shared memory per block; the limit is " +
        std::to_string(sm.max_smem_per_block));
  }
  Residency r;
  r.warps_per_block = (launch.threads_per_block + sm.warp_size - 1) / sm.warp_size;
  int limit = std::min(sm.max_blocks, sm.max_warps / r.warps_per_block);
  if (launch.registers_per_thread > 0) {
    const int per_warp = round_up(launch.registers_per_thread * sm.warp_size, sm.register_allocation_unit);
    const int warps_per_partition = sm.registers / sm.sub_partitions / per_warp;
    limit = std::min(limit, sm.sub_partitions * warps_per_partition / r.warps_per_block);
  }
  if (launch.smem_per_block > 0) {
    const int per_block = round_up(launch.smem_per_block + sm.smem_reserved_per_block,
                                   std::max(1, sm.smem_allocation_granularity));
    const int capacity = sm.smem_carveouts.empty() ? sm.l1_smem_bytes : sm.smem_carveouts.back();
    limit = std::min(limit, capacity / per_block);
  }
  if (limit < 1) bad("the launch's registers or shared memory do not fit one block on an SM");
  r.blocks_per_sm = limit;
  r.occupancy = static_cast<double>(limit * r.warps_per_block) / sm.max_warps;
  return r;
}

}  // namespace hpcsim

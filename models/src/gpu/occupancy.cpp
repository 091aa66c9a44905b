#include "models/gpu/occupancy.h"

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

namespace hpcsim {

namespace {

int round_up(int x, int unit) { return unit <= 0 ? x : (x + unit - 1) / unit * unit; }
int divide_up(int x, int unit) { return (x + unit - 1) / unit; }

[[noreturn]] void invalid(LaunchField field, const std::string& message) { throw InvalidLaunch(field, message); }

// Registers are allocated per warp in units of register_allocation_unit, and each warp lives in one
// sub-partition whose share of the register file is fixed: a block count that fits the SM total can still
// fail to fit per sub-partition (the Best Practices Guide's 37-register example: 12 blocks, not 13).
int blocks_by_registers(const SmLimits& sm, int regs_per_thread, int warps_per_block, int& regs_per_block) {
  const int regs_per_warp = round_up(regs_per_thread * sm.warp_size, sm.register_allocation_unit);
  regs_per_block = regs_per_warp * warps_per_block;
  // The hardware's per-block check assumes the block's warps spread over every sub-partition.
  const int regs_checked = regs_per_warp * round_up(warps_per_block, sm.sub_partitions);
  if (regs_per_block > sm.max_registers_per_block || regs_checked > sm.max_registers_per_block) {
    invalid(LaunchField::registers, std::to_string(regs_per_thread) + " registers per thread x " + std::to_string(warps_per_block) +
            " warps need " + std::to_string(regs_checked) + " registers per block; the limit is " +
            std::to_string(sm.max_registers_per_block));
  }
  if (regs_per_warp == 0) return INT_MAX;
  const int warps_per_sub_partition = sm.registers / sm.sub_partitions / regs_per_warp;
  return warps_per_sub_partition * sm.sub_partitions / warps_per_block;
}

// Shared memory is allocated per block in granules after the driver's reserve; the SM's shared capacity is
// the preferred carveout if one block fits it, else the smallest carveout that holds one block.
int blocks_by_smem(const SmLimits& sm, const LaunchResources& launch, int& smem_per_block, int& smem_per_sm) {
  smem_per_block = round_up(launch.smem_per_block + sm.smem_reserved_per_block, sm.smem_allocation_granularity);
  if (launch.smem_per_block > sm.max_smem_per_block) {
    invalid(LaunchField::shared_memory, std::to_string(launch.smem_per_block) + " bytes of shared memory per block exceed the maximum of " +
            std::to_string(sm.max_smem_per_block));
  }
  const int largest = sm.smem_carveouts.back();
  const int wanted = launch.smem_carveout_preference.value_or(largest);
  const auto carveout_at_least = [&](int bytes) {
    const auto it = std::lower_bound(sm.smem_carveouts.begin(), sm.smem_carveouts.end(), bytes);
    return it == sm.smem_carveouts.end() ? largest : *it;
  };
  // A preference is rounded up to a carveout the hardware has, as the driver does.
  smem_per_sm = carveout_at_least(wanted);
  if (smem_per_sm < smem_per_block) smem_per_sm = carveout_at_least(smem_per_block);
  return smem_per_block == 0 ? INT_MAX : smem_per_sm / smem_per_block;
}

}  // namespace

std::string_view to_string(OccupancyLimiter limiter) {
  switch (limiter) {
    case OccupancyLimiter::warps: return "warps";
    case OccupancyLimiter::registers: return "registers";
    case OccupancyLimiter::shared_memory: return "shared_memory";
    case OccupancyLimiter::blocks: return "blocks";
  }
  return "warps";
}

Occupancy compute_occupancy(const SmLimits& sm, const LaunchResources& launch) {
  if (launch.threads_per_block < 1 || launch.threads_per_block > sm.max_threads_per_block) {
    invalid(LaunchField::threads, std::to_string(launch.threads_per_block) + " threads per block: must be 1 to " +
            std::to_string(sm.max_threads_per_block));
  }
  if (launch.registers_per_thread < 0 || launch.registers_per_thread > sm.max_registers_per_thread) {
    invalid(LaunchField::registers, std::to_string(launch.registers_per_thread) + " registers per thread: must be 0 to " +
            std::to_string(sm.max_registers_per_thread));
  }
  if (launch.smem_per_block < 0) invalid(LaunchField::shared_memory, "shared memory per block cannot be negative");
  if (sm.smem_carveouts.empty() || sm.max_warps <= 0) throw std::invalid_argument("the SM limits are incomplete");

  Occupancy o;
  const int warps_per_block = divide_up(launch.threads_per_block, sm.warp_size);
  o.blocks_by_warps = sm.max_warps / warps_per_block;
  o.blocks_by_block_limit = sm.max_blocks;
  o.blocks_by_registers = blocks_by_registers(sm, launch.registers_per_thread, warps_per_block, o.registers_per_block);
  o.blocks_by_smem = blocks_by_smem(sm, launch, o.smem_per_block, o.smem_per_sm);

  const std::array<std::pair<int, OccupancyLimiter>, 4> limits = {{
      {o.blocks_by_warps, OccupancyLimiter::warps},
      {o.blocks_by_registers, OccupancyLimiter::registers},
      {o.blocks_by_smem, OccupancyLimiter::shared_memory},
      {o.blocks_by_block_limit, OccupancyLimiter::blocks},
  }};
  o.active_blocks_per_sm = INT_MAX;
  for (const auto& [blocks, limiter] : limits) {
    if (blocks < o.active_blocks_per_sm) {
      o.active_blocks_per_sm = blocks;
      o.limiter = limiter;
    }
  }
  o.active_warps_per_sm = o.active_blocks_per_sm * warps_per_block;
  o.occupancy = static_cast<double>(o.active_warps_per_sm) / sm.max_warps;
  return o;
}

}  // namespace hpcsim

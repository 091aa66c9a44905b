#pragma once
// Theoretical occupancy of a kernel launch by the CUDA rules (what cudaOccupancyMaxActiveBlocksPerMultiprocessor
// reports): how many blocks fit on one SM at once, and which resource stops one more from fitting.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/gpu/gpu_spec.h"

namespace hpcsim {

struct LaunchResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  int smem_per_block = 0;                      // bytes, static plus dynamic, without the driver's reserve
  std::optional<int> smem_carveout_preference;  // bytes; absent = the SM's largest carveout (CUDA default)
};

// The resource that bounds the block count. When several tie, the first in this order is reported.
enum class OccupancyLimiter { warps, registers, shared_memory, blocks };
std::string_view to_string(OccupancyLimiter limiter);

struct Occupancy {
  int active_blocks_per_sm = 0;
  int active_warps_per_sm = 0;
  double occupancy = 0;                // active warps / max warps per SM
  OccupancyLimiter limiter = OccupancyLimiter::warps;
  // The block count each resource alone allows.
  int blocks_by_warps = 0, blocks_by_registers = 0, blocks_by_smem = 0, blocks_by_block_limit = 0;
  int registers_per_block = 0;         // allocated: per-warp rounding included
  int smem_per_block = 0;              // allocated: reserve and granularity included
  int smem_per_sm = 0;                 // the carveout the SM is configured with
};

// Which part of a launch broke a limit, so a caller can name its own flag or field.
enum class LaunchField { threads, registers, shared_memory };

class InvalidLaunch : public std::invalid_argument {
 public:
  InvalidLaunch(LaunchField field, const std::string& message) : std::invalid_argument(message), field_(field) {}
  LaunchField field() const { return field_; }

 private:
  LaunchField field_;
};

// Throws InvalidLaunch, naming the limit, for a launch that cannot run at all (more threads than a
// block may have, more registers per thread or per block than allowed, more shared memory than a block may
// use) rather than reporting zero blocks.
Occupancy compute_occupancy(const SmLimits& sm, const LaunchResources& launch);

}  // namespace hpcsim

#pragma once
// WarpSim: a kernel run at warp granularity on one representative SM of a GPU spec. Per sub-partition
// warp schedulers issue one instruction a cycle (greedy-then-oldest) from the warps resident by the CUDA
// occupancy rules; each instruction class has its latency and issue interval; global memory goes through a
// coalescer into 32-byte sectors, a per-SM L1 and the L2 (sector caches, LRU) with a limit on outstanding
// misses, and HBM channels; shared memory has 32 banks and serializes conflicts; barriers and divergent
// branches stall warps as the hardware does. The other SMs run the same blocks by symmetry: the SM gets
// blocks b, b + SMs, b + 2 SMs, ... and 1/active-SMs of the L2 capacity and of the L2 and HBM bandwidth.
// The cycle loop jumps over cycles in which no warp can issue and allocates nothing per instruction.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/occupancy.h"
#include "models/gpu/warp_sim/kernel_program.h"

namespace hpcsim {

struct WarpSimOptions {
  // Simulate every SM (sharing one L2 and the HBM channels, blocks dispatched to whichever SM frees a slot)
  // instead of one representative SM: slower by the SM count, but data one SM brings into L2 is there for
  // the others, which the symmetric view cannot know (GEMM tiles shared across blocks).
  bool all_sms = false;
  bool trace = false;           // record per-scheduler issue spans (WarpSimResult::trace)
  int max_trace_spans = 200000;  // spans past this are dropped (trace_truncated)
  int max_clock_reads = 1 << 20;
  // Called as each block launches, with the blocks launched so far and the blocks it will simulate (a
  // progress line): with all_sms a large kernel runs for minutes.
  std::function<void(std::int64_t launched, std::int64_t to_simulate)> progress;
};

// Where a warp's resident cycles went. Every cycle of every resident warp is in exactly one bucket.
enum class WarpState : int { issuing, memory_wait, dependency, pipe_busy, barrier, throttled, not_selected };
inline constexpr int kWarpStateCount = 7;
std::string_view to_string(WarpState s);

struct IssueSpan {  // consecutive issue cycles of one scheduler with one instruction class
  int sm = 0;
  int scheduler = 0;
  InstrClass cls = InstrClass::fp32;
  std::int64_t begin = 0, end = 0;  // cycles, end exclusive
};

struct WarpSimResult {
  std::string kernel;
  Occupancy occupancy;
  int active_sms = 0;               // SMs with at least one block
  int simulated_sms = 0;            // 1, or every active SM with WarpSimOptions::all_sms
  std::int64_t blocks_simulated = 0;
  std::int64_t kernel_blocks = 0;
  double clock_hz = 0;
  std::int64_t cycles = 0;          // of the representative SM: the kernel's duration
  double time_s = 0;
  // Counts over the simulated SMs.
  std::int64_t warp_instructions = 0;  // issued, each warp's final EXIT included (control instructions are free)
  std::int64_t lane_slots = 0, active_lanes = 0;  // 32 per issue, and the lanes active in them
  std::int64_t global_requests = 0, global_sectors = 0;  // warp-level global memory instructions and their sectors
  std::int64_t l1_hits = 0, l1_misses = 0, l2_hits = 0, l2_misses = 0;  // sectors (stores count at L2 only)
  std::int64_t shared_requests = 0, shared_wavefronts = 0;
  double hbm_bytes = 0, flops = 0;
  std::array<std::int64_t, kWarpStateCount> warp_cycles{};
  std::vector<double> clock_reads;  // cycles at which block 0's warp 0 passed each clock instruction
  std::vector<IssueSpan> trace;
  bool trace_truncated = false;
  int schedulers = 0;

  // The whole kernel, by symmetry over the SMs.
  double scale() const;  // kernel totals / simulated totals (1 with all_sms)
  double kernel_flops() const { return flops * scale(); }
  double kernel_hbm_bytes() const { return hbm_bytes * scale(); }
  double kernel_warp_instructions() const { return static_cast<double>(warp_instructions) * scale(); }
};

// Throws std::invalid_argument for a GPU without a `warp_sim:` section or units the program needs, and for
// a launch the GPU cannot run (the occupancy rules' InvalidLaunch); std::logic_error when warps deadlock.
WarpSimResult simulate_kernel(const GpuSpec& gpu, const KernelProgram& program, const WarpSimOptions& options = {});

}  // namespace hpcsim

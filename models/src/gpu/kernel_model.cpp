#include "models/gpu/kernel_model.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernel_residency.h"

namespace hpcsim {

namespace {

constexpr int kWarpLanes = 32;
// Cycles between dependent FP32/INT add-multiply instructions on Volta through Hopper (Accel-Sim tuned
// configs; Abdelkhalik et al., arXiv 2208.11174, A100 add.f32 4 cycles). A scheduler issues one
// instruction per cycle, so it needs this many independent instructions in flight to keep its pipe busy.
constexpr double kDependentIssueCycles = 4;
// Load/store units: 32 per SM (8 per sub-partition in the Volta, Ampere and Hopper SM diagrams of their
// architecture whitepapers), so one warp-wide memory instruction issues per clock per SM.
constexpr double kMemoryInstructionsPerClock = 1;

// Cycles a scheduler takes to issue one warp-wide vector instruction: the warp's 32 lanes over the unit's
// FMA lanes in one sub-partition (Volta and Ampere have 16 FP32 lanes a sub-partition, so a warp's FFMA
// issues over 2 cycles; Hopper has 32: 1 cycle; the Volta, Ampere and Hopper whitepapers' SM diagrams).
// Packed 16-bit math (HFMA2) does two FMAs a lane. At least 1: a scheduler issues one instruction a clock.
double vector_issue_cycles(const GpuSpec& gpu, Precision p) {
  const std::optional<double>& flops = gpu.vector_flops_per_clock_per_sm[static_cast<int>(p)];
  if (!flops || *flops <= 0) return 1;
  const double packing = p == Precision::fp16 || p == Precision::bf16 ? 2 : 1;
  const double fma_lanes_per_sub_partition = *flops / 2 / packing / gpu.sm.sub_partitions;
  return std::max(1.0, kWarpLanes / fma_lanes_per_sub_partition);
}

// The busiest SM's special-function results at one per lane per clock.
double special_function_s(const GpuSpec& gpu, const KernelWork& work, double share) {
  if (work.special_ops <= 0) return 0;
  if (gpu.sfu_lanes_per_sm < 1) throw std::invalid_argument("GPU '" + gpu.name + "' gives no special-function lanes");
  return share * work.special_ops / (gpu.sfu_lanes_per_sm * gpu.boost_clock_hz);
}

}  // namespace

KernelWork& KernelWork::add(const GlobalAccess& access) {
  if (global_count == kMaxGlobalAccesses) throw std::length_error("a kernel holds at most " + std::to_string(kMaxGlobalAccesses) + " access streams");
  global[global_count++] = access;
  return *this;
}

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::latency: return "latency";
    case Bound::launch: return "launch";
  }
  return "?";
}

double sector_inflation(int element_bytes, int stride_elements, int sector_bytes) {
  if (element_bytes < 1 || stride_elements < 0 || sector_bytes < 1) {
    throw std::invalid_argument("an access needs element_bytes >= 1 and stride >= 0");
  }
  // Sectors one warp's request touches, lanes at i * stride * element_bytes from an aligned base. Every
  // lane on one element (stride 0) or the lanes side by side (stride 1, most accesses) touch one run of
  // sectors: counted at once, the same count the walk below gives (an LLM serve run asks millions of times).
  long long sectors = 0, last = -1;
  if (stride_elements <= 1) {
    const long long span = static_cast<long long>(element_bytes) * (stride_elements == 0 ? 1 : kWarpLanes);
    sectors = (span - 1) / sector_bytes + 1;
    return static_cast<double>(sectors * sector_bytes) / (kWarpLanes * element_bytes);
  }
  for (long long lane = 0; lane < kWarpLanes; ++lane) {
    const long long start = lane * stride_elements * element_bytes;
    const long long first_sector = std::max(start / sector_bytes, last + 1);
    const long long end_sector = (start + element_bytes - 1) / sector_bytes;
    if (end_sector >= first_sector) {
      sectors += end_sector - first_sector + 1;
      last = end_sector;
    }
  }
  return static_cast<double>(sectors * sector_bytes) / (kWarpLanes * element_bytes);
}

double bank_conflict_degree(int element_bytes, int stride_elements, int banks, int bank_bytes) {
  if (element_bytes < 1 || stride_elements < 0 || banks < 1 || bank_bytes < 1 || banks > 64) {
    throw std::invalid_argument("a shared-memory access needs element_bytes >= 1 and stride >= 0");
  }
  // A bank serves one distinct word per wavefront; lanes reading the same word share it.
  int per_bank[64] = {};
  long long last_word = -1;
  for (long long lane = 0; lane < kWarpLanes; ++lane) {
    const long long start = lane * stride_elements * element_bytes;
    for (long long w = std::max(start / bank_bytes, last_word + 1); w <= (start + element_bytes - 1) / bank_bytes; ++w) {
      ++per_bank[w % banks];
      last_word = w;
    }
  }
  const int wavefronts = *std::max_element(per_bank, per_bank + banks);
  const int minimum = std::max(1, (kWarpLanes * element_bytes + banks * bank_bytes - 1) / (banks * bank_bytes));
  return std::max(1.0, static_cast<double>(wavefronts) / minimum);
}

KernelTime estimate_kernel(const GpuSpec& gpu, const KernelLaunch& launch, const KernelWork& work) {
  const Residency res = resident_blocks(gpu, launch);
  const double clock = gpu.boost_clock_hz;
  const double sms = gpu.sm_count;
  // Blocks are dealt to SMs as they free up: the busiest SM runs ceil(blocks / SMs) of them,
  // in rounds of at most blocks_per_sm at a time.
  const double busiest = std::ceil(static_cast<double>(launch.blocks) / sms);
  const double rounds = std::ceil(busiest / res.blocks_per_sm);
  const double resident_warps = std::min<double>(res.blocks_per_sm, busiest) * res.warps_per_block;
  const double share = busiest / static_cast<double>(launch.blocks);  // busiest SM's part of the work

  KernelTime t;
  t.occupancy = res.occupancy;
  t.blocks_per_sm = res.blocks_per_sm;
  t.waves = static_cast<double>(launch.blocks) / (res.blocks_per_sm * sms);
  t.launch_s = gpu.launch_overhead_s;

  // Math: the busiest SM's operations at its unit's rate, divergent lanes idle on the vector unit.
  double compute_latency_s = 0;
  const double issued = work.issued_flops > 0 ? work.issued_flops : work.flops;
  if (issued > 0) {
    const double sm_rate = gpu.peak(work.precision, work.unit) / sms;
    const bool tensor = work.unit == MathUnit::tensor;
    const double efficiency =
        tensor ? gpu.matmul_fraction : std::clamp(work.active_lanes, 1.0 / kWarpLanes, 1.0) * work.math_efficiency;
    const double math_s = issued * share / (sm_rate * efficiency);
    t.special_s = special_function_s(gpu, work, share);
    t.block_s = rounds * work.block_latency_cycles / clock;
    t.compute_s = math_s + t.special_s + t.block_s;
    // Too few independent instructions per scheduler leave the vector pipe idle between dependent ones: a
    // warp instruction holds the pipe for its issue cycles, so fewer are needed where it issues over two.
    const double hiding =
        tensor ? 1.0
               : std::min(1.0, resident_warps * work.ilp * vector_issue_cycles(gpu, work.precision) /
                                   (gpu.sm.sub_partitions * kDependentIssueCycles));
    compute_latency_s = math_s / hiding + t.special_s + t.block_s;
  }

  // Shared memory: 32 banks x 4 bytes per clock per SM, serialized by the conflict degree.
  if (work.shared.bytes > 0) {
    const double degree = bank_conflict_degree(work.shared.element_bytes, work.shared.stride_elements,
                                               gpu.sm.smem_banks, gpu.sm.smem_bank_bytes);
    t.smem_bytes = work.shared.bytes * degree;
    t.smem_s = t.smem_bytes * share / (gpu.sm.smem_banks * gpu.sm.smem_bank_bytes * clock);
  }
  double memory_instructions = work.shared.bytes / (kWarpLanes * work.shared.element_bytes);

  // Global memory: sectors through L2; unique sectors plus the re-reads L2 cannot hold cross HBM.
  const MemoryHierarchy& mem = gpu.memory;
  double unique_total = 0;
  std::array<double, kMaxGlobalAccesses> l2{}, unique{};
  for (int i = 0; i < work.global_count; ++i) {
    const GlobalAccess& a = work.global[i];
    l2[i] = a.bytes * sector_inflation(a.element_bytes, a.stride_elements, mem.sector_bytes);
    unique[i] = a.unique_bytes < 0 ? l2[i] : std::min(a.unique_bytes, l2[i]);
    unique_total += unique[i];
  }
  const double working_set = work.working_set_bytes < 0 ? unique_total : work.working_set_bytes;
  const double l2_hit = working_set <= mem.l2_bytes ? 1.0 : mem.l2_bytes / working_set;
  double read_l2 = 0, read_hbm = 0, read_requests = 0;
  for (int i = 0; i < work.global_count; ++i) {
    const GlobalAccess& a = work.global[i];
    const double hbm = unique[i] + (l2[i] - unique[i]) * (1 - l2_hit);
    t.l2_bytes += l2[i];
    t.hbm_bytes += hbm;
    if (!(work.bulk_copies && !a.write)) memory_instructions += a.bytes / (kWarpLanes * a.element_bytes);
    if (!a.write) {
      read_l2 += l2[i];
      read_hbm += hbm;
      read_requests += a.bytes / (kWarpLanes * a.element_bytes);
    }
  }
  t.hbm_s = t.hbm_bytes / (gpu.achievable_memory_bandwidth() *
                           (work.framework_pointwise ? gpu.pointwise_memory_fraction : 1.0));
  t.lsu_s = memory_instructions * share / (kMemoryInstructionsPerClock * clock);
  if (mem.l2_bandwidth > 0) t.l2_s = t.l2_bytes / mem.l2_bandwidth;

  // Little's law: each warp keeps requests_in_flight loads outstanding for one latency each.
  double memory_latency_s = 0;
  if (read_requests > 0) {
    const double miss = read_l2 > 0 ? read_hbm / read_l2 : 1.0;
    const double latency_s = (miss * mem.hbm_latency_cycles + (1 - miss) * mem.l2_latency_cycles) / clock;
    const double per_warp = read_requests / (static_cast<double>(launch.blocks) * res.warps_per_block);
    memory_latency_s = rounds * std::ceil(per_warp / work.requests_in_flight) * latency_s;
  }
  t.latency_s = std::max(compute_latency_s, memory_latency_s);

  // The kernel's work takes as long as its slowest unit (ties go to the earlier-listed bound) and starts
  // after its launch latency: in a stream, launch and work add (Accel-Sim delays a kernel's start by
  // gpgpu_kernel_launch_latency; on an H200 one-warp kernels spinning 4,000-16,000 cycles back to back take
  // their spin plus 1.3 us: docs/validation.md, "First device run").
  double work_s = 0;
  t.bound = Bound::launch;
  const auto consider = [&](double s, Bound b) {
    if (s > work_s) {
      work_s = s;
      t.bound = b;
    }
  };
  consider(t.compute_s, Bound::compute);
  consider(std::max({t.lsu_s, t.smem_s, t.l2_s, t.hbm_s}), Bound::memory);
  consider(t.latency_s, Bound::latency);
  if (work_s < t.launch_s) t.bound = Bound::launch;
  t.time_s = t.launch_s + work_s;
  t.flops_per_s = work.flops / t.time_s;
  t.bytes_per_s = t.hbm_bytes / t.time_s;
  return t;
}

}  // namespace hpcsim

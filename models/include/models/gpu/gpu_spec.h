#pragma once
// A GPU as a hardware spec describes it (configs/gpus/*.yaml). Datasheet peaks and the fractions of
// them that real kernels reach are separate fields; peaks derive from per-SM-per-clock rates.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/gpu/precision.h"

namespace hpcsim {

// Execution units a kernel's math can run on.
enum class MathUnit { vector, tensor };

// The per-SM resource limits that decide occupancy (CUDA Programming Guide, compute capabilities table).
struct SmLimits {
  int warp_size = 32;
  int max_warps = 0;                 // resident warps per SM
  int max_blocks = 0;                // resident blocks per SM
  int max_threads = 0;               // resident threads per SM
  int max_threads_per_block = 1024;
  int registers = 65536;             // 32-bit registers per SM
  int max_registers_per_block = 65536;
  int max_registers_per_thread = 255;
  int register_allocation_unit = 256;  // registers per warp are rounded up to this
  int sub_partitions = 4;              // register file split over warp-scheduler sub-partitions
  std::vector<int> smem_carveouts;     // bytes of shared memory the SM can be configured for, ascending
  int smem_allocation_granularity = 0; // bytes
  int smem_reserved_per_block = 0;     // bytes the driver reserves per block (1 KiB on 8.0+)
  int max_smem_per_block = 0;          // bytes, opt-in maximum
  int default_smem_per_block = 49152;  // bytes without opt-in
  int l1_smem_bytes = 0;               // unified L1 + shared per SM
  int smem_banks = 32;
  int smem_bank_bytes = 4;
};

struct MemoryHierarchy {
  double hbm_bytes = 0;
  double hbm_bandwidth = 0;          // bytes/s, datasheet
  double l2_bytes = 0;
  double l2_bandwidth = 0;           // bytes/s, measured or derived
  double l1_bytes_per_clock_per_sm = 0;
  int sector_bytes = 32;
  int cache_line_bytes = 128;
  // Load-to-use latencies in core cycles.
  double l1_latency_cycles = 0, smem_latency_cycles = 0, l2_latency_cycles = 0, hbm_latency_cycles = 0;
};

// What the warp-level simulator (models/gpu/warp_sim) needs beyond the fields above: instruction pipeline
// latencies, the units that are not derived from the math rates, cache organisation, the miss limit and
// the memory channels. Optional in a spec; WarpSim refuses a GPU without it.
struct WarpSimSpec {
  // Dependent-issue latencies in core cycles by instruction class.
  double int_latency = 0, fp32_latency = 0, fp64_latency = 0, sfu_latency = 0, mma_latency = 0;
  int int_lanes_per_sm = 0;   // INT32 lanes (FP32 and FP64 lanes derive from the vector FLOP rates, SFU lanes
                              // are GpuSpec::sfu_lanes_per_sm)
  int lsu_lanes_per_sm = 0;   // load/store unit lanes: a warp's memory instruction issues over 32 / (lanes/4) cycles
  int l1_ways = 0, l2_ways = 0;
  int miss_limit_per_sm = 0;  // L1 miss-status registers: sectors an SM may have outstanding below L1
  int hbm_channels = 0;       // independent device-memory channels the address space interleaves over
};

struct GpuSpec {
  std::string name;
  std::string vendor;                // nvidia, amd
  std::string compute_capability;    // "8.0"; "" for other vendors (CUDA occupancy rules do not apply)
  int sm_count = 0;
  double base_clock_hz = 0;          // 0 when no source gives it
  // Peaks derive from per-SM-per-clock rates times SMs times a clock, and vendors do not quote every
  // precision at one clock: the H100 SXM5's FP64/FP32 peaks (66.9 TFLOP/s = 132 x 256 x 1.98 GHz) use the
  // maximum boost clock while its TF32/FP16/BF16/FP8/INT8 tensor peaks (989.4 = 132 x 4096 x 1.83 GHz) use
  // the lower clock the SM sustains under dense tensor load. One clock field would make one of the two
  // families wrong, so there are two; tensor_clock_hz equals boost_clock_hz where the datasheet uses one.
  double boost_clock_hz = 0;         // max boost: vector and FP64 peaks are quoted at it
  double tensor_clock_hz = 0;        // reduced-precision (not FP64) tensor peaks are quoted at it
  SmLimits sm;
  MemoryHierarchy memory;
  // Dense FLOPs (or integer ops) per SM per clock, by precision and unit; absent = no such unit.
  std::array<std::optional<double>, kPrecisionCount> vector_flops_per_clock_per_sm{};
  std::array<std::optional<double>, kPrecisionCount> tensor_flops_per_clock_per_sm{};
  // Special-function (MUFU) lanes: exp2, reciprocal and square-root results per clock per SM. A fused
  // attention kernel's softmax takes one exponential per score, and these lanes are few (16 per SM from
  // Volta to Hopper against 2048-8192 tensor FLOPs per clock).
  int sfu_lanes_per_sm = 0;
  double matmul_fraction = 0;        // of the tensor peak that large well-shaped GEMMs reach
  double simt_matmul_fraction = 1;   // of the vector peak that SIMT (CUDA-core) GEMMs reach; 1: not measured
  double pointwise_memory_fraction = 1;  // of the streaming bandwidth a framework's pointwise kernels reach
  double memory_fraction = 0;        // of HBM bandwidth that streaming kernels reach
  double launch_overhead_s = 0;
  int pcie_generation = 0, pcie_lanes = 0;
  int nvlink_ports = 0;
  double nvlink_bandwidth_per_port = 0;  // bytes/s per direction
  double tdp_w = 0;
  double idle_power_w = 0;  // board power with nothing running; 0 when the spec does not say
  std::optional<WarpSimSpec> warp_sim;  // absent: the spec has no `warp_sim:` section

  // Kept for callers of the foundation: memory_bytes == memory.hbm_bytes etc.
  double memory_bytes() const { return memory.hbm_bytes; }
  double memory_bandwidth() const { return memory.hbm_bandwidth; }

  bool supports(Precision p) const;
  // Dense peak FLOP/s in a precision on its fastest unit (tensor if present); throws
  // std::invalid_argument naming the GPU when it has no unit for this precision.
  double peak(Precision p) const;
  double peak(Precision p, MathUnit unit) const;
  // The clock peak(p, unit) is quoted at (see tensor_clock_hz).
  double peak_clock_hz(Precision p, MathUnit unit) const;
  double achievable_matmul_flops(Precision p) const { return peak(p) * matmul_fraction; }
  double achievable_memory_bandwidth() const { return memory.hbm_bandwidth * memory_fraction; }
};

const Schema& gpu_spec_schema();
// Validates `node` against gpu_spec_schema() and reads it; errors are ConfigErrors with locations.
GpuSpec parse_gpu_spec(const ConfigNode& node, std::string name);

}  // namespace hpcsim

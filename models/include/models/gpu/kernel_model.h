#pragma once
// Analytical time of one GPU kernel from its launch shape and its work. A roofline over the units a
// kernel uses (math, shared memory, L2, HBM), quantized to the waves occupancy allows, with latency
// hiding by Little's law and the kernel launch as a floor. Evaluation allocates nothing.
#include <array>
#include <cstdint>
#include <string_view>

#include "models/gpu/gpu_spec.h"

namespace hpcsim {

struct KernelLaunch {
  std::int64_t blocks = 1;
  int threads_per_block = 256;
  int registers_per_thread = 32;
  int smem_per_block = 0;  // bytes, static plus dynamic
};

// One stream of global-memory accesses (loads or stores of one array).
struct GlobalAccess {
  double bytes = 0;          // bytes the threads ask for (or store), summed over the kernel
  double unique_bytes = -1;  // distinct bytes that must cross HBM at least once; < 0: every sector fetched is new
  int element_bytes = 4;     // bytes one thread accesses per instruction (16 for vectorized loads)
  int stride_elements = 1;   // distance between neighbouring lanes' elements; 0 = all lanes read one address
  bool write = false;
};

// Shared-memory traffic; the stride between lanes (in elements) decides the bank-conflict degree.
struct SharedAccess {
  double bytes = 0;
  int element_bytes = 4;
  int stride_elements = 1;
};

inline constexpr int kMaxGlobalAccesses = 8;

struct KernelWork {
  double flops = 0;         // useful operations, as reported
  double issued_flops = 0;  // operations the units execute (tile padding included); 0 = flops
  Precision precision = Precision::fp32;
  MathUnit unit = MathUnit::vector;
  double active_lanes = 1.0;  // mean fraction of a warp's lanes doing the math (branch divergence)
  double ilp = 1.0;           // independent math instructions per warp between dependent ones
  double math_efficiency = 1.0;  // of the vector unit's rate the instruction mix reaches (SIMT GEMMs: measured)
  std::array<GlobalAccess, kMaxGlobalAccesses> global{};
  int global_count = 0;
  SharedAccess shared;
  bool bulk_copies = false;  // global loads by the Hopper tensor memory accelerator, not per-thread instructions
  double requests_in_flight = 1;  // global loads each warp keeps outstanding (unrolling, async copies)
  double working_set_bytes = -1;  // data re-read from L2 during the kernel; < 0: all unique bytes
  double block_latency_cycles = 0;  // serial latency each block pays once (pipeline fill, epilogue)
  // A framework's pointwise, normalization or optimizer kernel: it reaches the GPU's
  // pointwise_memory_fraction of the streaming bandwidth (a calibrated parameter), where copies and
  // library kernels reach the measured streaming bandwidth itself.
  bool framework_pointwise = false;
  // Special-function results (exp2) a fused kernel computes between its matrix products (a flash-attention
  // softmax). The special-function lanes are few, and the next product waits on them (FlashAttention-3,
  // arXiv 2407.08608, sec. 3.2: the waits "serialize the execution of softmax and GEMMs"), so their time
  // adds to the math's; the softmax's FP32 steps run on the wide FP32 lanes and are not charged.
  double special_ops = 0;

  // Adds an access stream; throws std::length_error past kMaxGlobalAccesses.
  KernelWork& add(const GlobalAccess& access);
};

enum class Bound { compute, memory, latency, launch };
std::string_view to_string(Bound b);

struct KernelTime {
  double time_s = 0;
  double flops_per_s = 0;
  double bytes_per_s = 0;  // HBM bytes read plus written, per second
  double hbm_bytes = 0, l2_bytes = 0, smem_bytes = 0;
  Bound bound = Bound::compute;
  double occupancy = 0;        // theoretical: resident warps / maximum warps per SM
  int blocks_per_sm = 0;
  double waves = 0;            // blocks / (blocks per SM x SMs)
  double special_s = 0;  // the part of compute_s the special-function lanes take (special_ops)
  double block_s = 0;    // the part of compute_s the blocks' fixed latencies take (block_latency_cycles, per round)
  // The candidate times whose maximum is the kernel time.
  double launch_s = 0, compute_s = 0, lsu_s = 0, smem_s = 0, l2_s = 0, hbm_s = 0, latency_s = 0;
};

// Throws std::invalid_argument for a launch the GPU cannot run or work it has no unit for.
KernelTime estimate_kernel(const GpuSpec& gpu, const KernelLaunch& launch, const KernelWork& work);

// Bytes moved in 32-byte sectors per byte the lanes ask for (1 when coalesced, up to 32/element_bytes).
double sector_inflation(int element_bytes, int stride_elements, int sector_bytes);
// Shared-memory wavefronts per warp access over the conflict-free minimum (1 = no conflict, up to 32).
double bank_conflict_degree(int element_bytes, int stride_elements, int banks, int bank_bytes);

}  // namespace hpcsim

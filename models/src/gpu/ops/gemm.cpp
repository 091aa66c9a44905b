#include "models/gpu/ops/gemm.h"
#include "models/gpu/grid_blocks.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/kernel_residency.h"

namespace hpcsim {

namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

// Widest load (up to 16 bytes) that keeps every row of a row-major operand with this leading dimension
// aligned: vector loads, cp.async and TMA need 16-byte aligned rows; N = 8193 in bf16 gets 2-byte loads.
int access_width(std::int64_t leading_dim, double element_bytes) {
  const auto row = static_cast<std::int64_t>(leading_dim * element_bytes);
  int width = 16;
  while (width > 1 && row % width != 0) width /= 2;
  return width;
}

// Hopper kernels run CTAs in clusters of two that share each A tile through TMA multicast (CUTLASS 3
// default ClusterShape 2x1x1), halving A's traffic from L2.
bool multicasts(const GpuSpec& gpu) {
  int major = 0;  // of "9.0"; std::from_chars: no locale, no allocation (this runs for every candidate tile)
  const std::string& cc = gpu.compute_capability;
  std::from_chars(cc.data(), cc.data() + cc.size(), major);
  return gpu.vendor != "amd" && major >= 9;
}

// Bytes of one output element: fp8 (and block-scaled mxfp8 / nvfp4 / mxfp4) products are written in bf16
// (cuBLASLt's usual output type); the rest in their own precision.
double output_element_bytes(Precision p) { return is_narrow_gemm_format(p) ? 2.0 : bytes_per_element(p); }

// One SM's share of the L2 bandwidth, per clock: the rate a CTA writes (or reads back) its output tile.
double l2_bytes_per_cycle_per_sm(const GpuSpec& gpu) { return gpu.memory.l2_bandwidth / gpu.sm_count / gpu.boost_clock_hz; }

// The rate one SM stores its output tiles, per clock: its share of L2's bandwidth while the output fits in L2;
// a larger output leaves L2 for HBM as it is written, so the SMs' stores together go at HBM's speed.
double store_bytes_per_cycle_per_sm(const GpuSpec& gpu, double output_bytes) {
  const double l2 = l2_bytes_per_cycle_per_sm(gpu);
  if (output_bytes <= gpu.memory.l2_bytes) return l2;
  return std::min(l2, gpu.achievable_memory_bandwidth() / gpu.sm_count / gpu.boost_clock_hz);
}

}  // namespace

const std::vector<CtaTile>& gemm_cta_tiles() {
  static const std::vector<CtaTile> tiles = {{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 64}};
  return tiles;
}

Kernel gemm_kernel(const GpuSpec& gpu, const GemmShape& s, CtaTile tile, GemmOperandFootprint footprint) {
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.batch < 1) {
    throw std::invalid_argument("GEMM sizes must be at least 1");
  }
  if (!gpu.supports(s.precision)) {
    throw std::invalid_argument("GPU '" + gpu.name + "' has no " + std::string(to_string(s.precision)) + " math units");
  }
  const bool tensor = gpu.tensor_flops_per_clock_per_sm[static_cast<int>(s.precision)].has_value();
  const double e = bytes_per_element(s.precision);
  const double out_e = output_element_bytes(s.precision);
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  const double batch = static_cast<double>(s.batch);

  // A K-slice of 128 bytes per row per pipeline stage (64 bf16 values), as CUTLASS's default tiles.
  const int bk = static_cast<int>(128 / e);
  const int threads = tile.m * tile.n >= 128 * 128 ? 256 : 128;
  const double stage_bytes = (tile.m + tile.n) * bk * e;
  const int stages = static_cast<int>(std::clamp(std::floor(gpu.sm.max_smem_per_block / stage_bytes), 2.0, 4.0));
  const double tiles_m = ceil_div(m, tile.m), tiles_n = ceil_div(n, tile.n);

  Kernel kern;
  kern.name = "gemm_" + std::to_string(tile.m) + "x" + std::to_string(tile.n);
  kern.launch.blocks = grid_blocks(tiles_m * tiles_n * static_cast<double>(batch));
  kern.launch.threads_per_block = threads;
  // fp32 accumulators of the tile spread over the threads, plus operand fragments and addresses.
  kern.launch.registers_per_thread = std::min(255, tile.m * tile.n / threads + 40);
  kern.launch.smem_per_block = static_cast<int>(std::min<double>(stages * stage_bytes, gpu.sm.max_smem_per_block));

  KernelWork& w = kern.work;
  w.flops = 2 * m * n * k * batch;
  w.issued_flops = 2 * tiles_m * tile.m * tiles_n * tile.n * ceil_div(k, bk) * bk * batch;
  w.precision = s.precision;
  w.unit = tensor ? MathUnit::tensor : MathUnit::vector;
  // A SIMT GEMM thread updates its whole accumulator block (tile / threads outputs) per k step: that
  // many independent FMAs between dependent ones.
  if (!tensor) w.ilp = static_cast<double>(tile.m * tile.n) / threads;
  // Shared-memory fragment loads, address arithmetic and the loop share the issue slots with the FMAs:
  // SIMT GEMMs reach a measured fraction of the vector peak.
  if (!tensor) w.math_efficiency = gpu.simt_matmul_fraction;

  // Operand traffic: every CTA reads its A row-panel and B column-panel. CTAs resident together work on a
  // compact patch of the output (swizzled rasterization), so HBM sees each wave's distinct panels once.
  const double resident = std::min<double>(resident_blocks(gpu, kern.launch).blocks_per_sm * gpu.sm_count,
                                           static_cast<double>(kern.launch.blocks));
  const double waves = static_cast<double>(kern.launch.blocks) / resident;
  const double patch_m = std::min(tiles_m, std::max(1.0, std::round(std::sqrt(resident * tile.n / tile.m))));
  const double patch_n = std::min(tiles_n, ceil_div(resident, patch_m));
  const double a_unique = footprint.a_bytes >= 0 ? footprint.a_bytes : m * k * e * batch;
  const double b_unique = footprint.b_bytes >= 0 ? footprint.b_bytes : k * n * e * batch;
  // Unaligned operands are loaded element-wise through registers and stored to shared memory by the
  // threads: no asynchronous copies, so one stage in flight, and no TMA multicast.
  const int a_width = access_width(s.k, e), b_width = access_width(s.n, e);
  const bool aligned = a_width == 16 && b_width == 16;
  const double multicast = aligned && multicasts(gpu) && tiles_n >= 2 ? 2.0 : 1.0;
  GlobalAccess a{m * k * e * batch * tiles_n / multicast, 0, a_width, 1, false};
  a.unique_bytes = std::min(a.bytes, std::max(a_unique, waves * patch_m * tile.m * k * e));
  GlobalAccess b{k * n * e * batch * tiles_m, 0, b_width, 1, false};
  b.unique_bytes = std::min(b.bytes, std::max(b_unique, waves * patch_n * tile.n * k * e));
  GlobalAccess c{m * n * out_e * batch, -1, access_width(s.n, out_e), 1, true};
  w.add(a).add(b).add(c);
  // The panels a wave re-reads are in use within a few pipeline stages of each other.
  w.working_set_bytes = (patch_m * tile.m + patch_n * tile.n) * bk * e * stages;
  // Asynchronous copies keep (stages - 1) stages of the tile in flight, spread over the warps.
  const double warps = threads / 32.0;
  const double in_flight_stages = aligned ? stages - 1 : 1;
  w.requests_in_flight = std::max(1.0, in_flight_stages * stage_bytes / (warps * 32 * std::min(a_width, b_width)));
  w.bulk_copies = aligned && multicasts(gpu);
  if (!aligned) w.shared = {a.bytes + b.bytes, std::min(a_width, b_width), 1};
  // Each tile waits for its first stage from HBM before the tensor cores start, and after its main loop it
  // writes its output tile while its math units idle (CUTLASS 2.x's epilogue, and AMD's). Hopper's kernels were
  // taken to hide that store behind the next tile; measured on an H200 through cuBLAS they do not: under a
  // fixed 16,384 x 4,096 output, time against K meets K = 0 at 25-51 us, about the output's 134 MB at HBM speed
  // (bench/cuda/measurements/2026-12-04-h200-kernels, docs/validation.md "Second device run").
  w.block_latency_cycles = gpu.memory.hbm_latency_cycles + tile.m * tile.n * out_e / store_bytes_per_cycle_per_sm(gpu, m * n * out_e * batch);
  return kern;
}

Kernel gemm_choice_kernel(const GpuSpec& gpu, const GemmShape& shape, GemmChoice choice, GemmOperandFootprint footprint) {
  if (choice.split < 1) throw std::invalid_argument("a split-K factor is at least 1");
  if (choice.split == 1) return gemm_kernel(gpu, shape, choice.tile, footprint);
  GemmShape part = shape;
  part.k = (shape.k + choice.split - 1) / choice.split;
  part.batch = shape.batch * choice.split;
  Kernel k = gemm_kernel(gpu, part, choice.tile, footprint);
  k.name += "_splitk" + std::to_string(choice.split);
  // The partial tiles are summed in place, one CTA after another: each of a tile's `split` CTAs waits on the
  // tile's semaphore for the one before it, reads the partial sum from the output, adds its own and writes it
  // back (CUTLASS's serial split-K, include/cutlass/gemm/kernel/gemm.h `kSplitKSerial`; cuBLASLt's in-place
  // reduction scheme, CUBLASLT_REDUCTION_SCHEME_INPLACE). The CTAs of a tile run in the same wave, so the last
  // one finishes split - 1 read-add-write rounds of its tile through L2 after the others' main loops.
  const double out_e = output_element_bytes(shape.precision);
  const double tile_bytes = static_cast<double>(choice.tile.m) * choice.tile.n * out_e;
  const double rounds = static_cast<double>(choice.split - 1);
  k.work.block_latency_cycles += rounds * (gpu.memory.l2_latency_cycles + 2 * tile_bytes / l2_bytes_per_cycle_per_sm(gpu));
  const double partials = rounds * static_cast<double>(shape.m) * static_cast<double>(shape.n) * out_e * static_cast<double>(shape.batch);
  k.work.add(GlobalAccess{partials, partials, 16, 1, false});
  return k;
}

GemmChoice gemm_choice(const GpuSpec& gpu, const GemmShape& shape, GemmOperandFootprint footprint) {
  GemmChoice best;
  double best_time = 0;
  auto consider = [&](GemmChoice candidate) {
    const Kernel k = gemm_choice_kernel(gpu, shape, candidate, footprint);
    const double t = estimate_kernel(gpu, k.launch, k.work).time_s;
    if (best_time == 0 || t < best_time) {
      best_time = t;
      best = candidate;
    }
  };
  for (const CtaTile& tile : gemm_cta_tiles()) {
    consider({tile, 1});
    // Split-K (cuBLAS, cuDNN's weight gradients): when the output has fewer tiles than the GPU has SMs
    // and K is long, `split` CTAs share each output tile, each over K / split, and write partial tiles
    // that are summed (the extra output traffic). Tried only where the output alone cannot fill the GPU.
    const double tiles = std::ceil(static_cast<double>(shape.m) / tile.m) * std::ceil(static_cast<double>(shape.n) / tile.n) *
                         static_cast<double>(shape.batch);
    for (std::int64_t split = 2; split <= 64 && tiles * split <= 4.0 * gpu.sm_count && shape.k / split >= 256; split *= 2) {
      consider({tile, split});
    }
  }
  return best;
}

Kernel gemm(const GpuSpec& gpu, const GemmShape& shape, GemmOperandFootprint footprint) {
  return gemm_choice_kernel(gpu, shape, gemm_choice(gpu, shape, footprint), footprint);
}

}  // namespace hpcsim

#pragma once
// The CUDA suite's benchmarks (bench/cuda) as WarpSim kernels, its "twins": the same access patterns and
// launch shapes, reported as the suite's CSV rows (benchmark, params key=value;..., metric, value, unit) so
// `hpcsim validate --measured` reads a twin's output as it reads a real GPU's.
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/warp_sim/warp_sim.h"

namespace hpcsim {

struct MicrobenchRow {
  std::string benchmark;
  std::string params;  // key=value;key=value, in the suite's order
  std::string metric;
  double value = 0;
  std::string unit;
};

// One simulated kernel of a benchmark, kept for --explain and --trace.
struct MicrobenchKernel {
  std::string params;
  KernelProgram program;
  WarpSimResult result;
};

struct MicrobenchRun {
  std::vector<MicrobenchRow> rows;
  std::vector<MicrobenchKernel> kernels;
};

// pointer-chase, coalescing, bank-conflicts, divergence, fma-ilp, occupancy-sweep, copy, triad, gemm.
const std::vector<std::string>& microbench_names();

// Runs one benchmark's twin. std::invalid_argument for an unknown name (listing the known ones) or a GPU
// WarpSim cannot run. `keep_kernels` keeps each kernel's program and result (for --explain); `options`
// goes to every simulation.
MicrobenchRun run_microbench(const GpuSpec& gpu, const std::string& name, const WarpSimOptions& options = {},
                             bool keep_kernels = false);

// The kernels the twins run, for tests and the kernel-model comparison.
KernelProgram pointer_chase_kernel(std::int64_t footprint_bytes, int stride_bytes, int loads);
KernelProgram triad_kernel(const GpuSpec& gpu, std::int64_t n);
// C[m,n] = A[m,k] B[k,n] in 128x128 block tiles, 8 warps of 64x32 tensor-core (m16n8k16) tiles, k in steps of
// 32 staged through shared memory with the next step's global loads in flight (register double buffering).
KernelProgram gemm_tile_kernel(std::int64_t m, std::int64_t n, std::int64_t k, Precision p);

}  // namespace hpcsim

#pragma once
// WarpSim programs that stand for the analytical model's kernels (`hpcsim kernel ... --explain`), so the
// warp-level breakdown (issuing, waiting on memory, barriers, divergence, miss-limit throttle) can be shown
// beside the analytical time. Built where the op's access pattern maps onto a WarpSim program: streaming
// kernels (copies, elementwise chains) launch-for-launch, GEMMs as the GEMM tile program the twin suite runs.
#include <cstdint>
#include <string>

#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/warp_sim/kernel_program.h"
#include "models/gpu/warp_sim/warp_sim.h"

namespace hpcsim {

struct KernelTwin {
  bool available = false;
  KernelProgram program;
  WarpSimOptions options;  // all_sms where SMs share data through L2 (GEMM tiles)
  double time_scale = 1;   // the kernel's time / the simulated program's (a GEMM's k loop simulated in part)
  std::string note;        // available: how the program differs from the kernel; else why there is none
};
// A grid of the kernel's own launch in which every thread loads its lane's bytes of each read stream once,
// does its share of the FP32 math, and stores its share of each written stream, lanes `stride` elements
// apart. None for kernels with shared memory, tensor or FP64 math, re-read streams or bulk (TMA) copies.
KernelTwin streaming_twin(const Kernel& kernel);

// GEMMs of the k loop past this are simulated at this k and their time scaled by k / this: the k loop is the
// kernel's steady state, and the prologue and epilogue scaled with it overstate the time by their share (a
// few per cent at 8 k steps; two-point extrapolation from shorter runs was tried and overshot the tensor
// peak, as short blocks overlap differently across waves).
inline constexpr std::int64_t kGemmSimulatedK = 256;

// gemm_tile_kernel (128x128x32 tiles, fp16/bf16 mma.sync) for one product on every SM, its k loop cut at
// kGemmSimulatedK. None for a batch, sizes off its tile (m, n multiples of 128, k of 32), other precisions or
// a GPU without tensor cores for the precision.
KernelTwin gemm_twin(const GpuSpec& gpu, const GemmShape& shape);

}  // namespace hpcsim

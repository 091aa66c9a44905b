#pragma once
// The one-GPU tools behind `hpcsim occupancy` and `hpcsim kernel` (and the Python module's occupancy() and
// kernel()): the GPU a --gpu flag names, the occupancy of a launch, and a deep-learning op's kernels by the
// op's name and shape. Errors name the flag they come from.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/source_loc.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/occupancy.h"
#include "models/gpu/ops/attention.h"
#include "models/gpu/ops/conv.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/embedding.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/optimizer.h"
#include "models/gpu/ops/recurrent.h"
#include "models/gpu/precision.h"
#include "models/gpu/warp_sim/kernel_twins.h"

namespace hpcsim {

// The GPU spec a --gpu flag names; ConfigError "--gpu NAME: ..." when there is none.
GpuSpec gpu_from_flag(const SpecCatalog& catalog, const std::string& name);

// Bad input to a tool, already naming its flag ("--smem 1.5B: ...").
struct ToolInputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The occupancy of a launch of `threads` threads per block, `regs` registers per thread and `smem` shared
// memory per block (any size unit), on the GPU `gpu` names (in the specs under `config_root`, read only then)
// or on compute capability `cc` (exactly one).
// ToolInputError for bad flags (the CLI prints it after "hpcsim occupancy: "), ConfigError for a bad GPU.
Occupancy occupancy_of(const std::string& config_root, const std::string& gpu, const std::string& cc, int threads, int regs,
                       const std::string& smem);

// Every op's shape; an op reads only its own fields (`hpcsim kernel OP --help` lists them as flags).
struct KernelOpShape {
  GemmShape gemm;
  std::string copy_bytes;   // copy: --bytes, any size unit
  RecurrentShape recurrent; // lstm, gru
  ConvShape conv;
  std::string conv_pass = "fprop";  // fprop, dgrad or wgrad
  std::int64_t rows = 1, cols = 1;  // softmax, layernorm
  bool backward = false;            // softmax, layernorm, embedding (the scatter-add)
  AttentionShape attention;
  bool unfused = false;             // attention
  OptimizerStep optimizer;
  std::string optimizer_kind = "adamw", optimizer_impl = "fused";
  EmbeddingShape embedding;
  ElementwiseChain chain;
};

// The ops, in the order `hpcsim kernel --help` lists them.
const std::vector<std::string>& kernel_op_names();
// The kernels op `op` launches at `shape`. ToolInputError for a shape named by its flag (printed as is),
// std::invalid_argument for a shape the op's model refuses (the CLI names the sizes given).
std::vector<Kernel> kernel_op(const std::string& op, const KernelOpShape& shape, const GpuSpec& gpu, Precision precision);
// The WarpSim programs standing for the op's kernels (--explain); empty when the op has no twin.
std::vector<KernelTwin> kernel_op_twins(const std::string& op, const KernelOpShape& shape, const GpuSpec& gpu,
                                        Precision precision, const std::vector<Kernel>& kernels);
// The ops with twins, "copy, elementwise, gemm", for the message where an op has none.
std::string kernel_ops_with_twins();
// Holds each available twin to the count limits before WarpSim runs it: its blocks, and for a twin of every
// SM (a GEMM's) its warp instructions, each of which is simulated (0.34 us each: 8192^3 takes 5 s, 65536^3
// would take an hour). ConfigError at `where`, the twin named by `what`.
void check_twin_limits(const std::vector<KernelTwin>& twins, const SourceLoc& where, const std::string& what);

}  // namespace hpcsim

#pragma once
// What a CPU core computes deep-learning ops with, as the `cpu.math:` section of a node spec describes it:
// dense math per clock by precision (SIMD FMA pipes, Arm's bf16/int8 matrix-multiply instructions, Intel's
// VNNI and AMX tiles), what one core can stream from memory, its caches, and the math library (oneDNN,
// Arm Compute Library) that runs the ops: the fractions of the peaks it reaches per op class and the cost
// of one parallel region. Datasheet peaks and achieved fractions are kept apart, as in GpuSpec.
#include <array>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/gpu/precision.h"

namespace hpcsim {

// The library's achieved fractions, threading costs and the code paths that differ between libraries.
struct CpuMathLibrary {
  std::string name;
  double gemm = 0;         // of the core's math peak, in large matrix products
  double conv = 0;         // of the core's math peak, in convolutions (direct or im2col + GEMM)
  double memory = 0;       // of the memory bandwidth, in streaming ops (elementwise, norms, reorders)
  double fork_join_s = 0;  // one parallel region's start and closing barrier (OpenMP), on any thread count
  // Smallest output, in elements, a library splits over threads per extra thread: PyTorch's at::parallel_for
  // grain for elementwise ops (ops smaller than this run on one thread).
  double grain_elements = 0;
  // Seconds per weight to reorder fp32 weights into the library's blocked bf16 layout when eager fast math
  // hands it fp32 weights on every call; the same on any thread count (the measured reference reorder).
  // 0: modelled as a streaming pass (read fp32, write bf16) on the op's threads.
  double weight_reorder_s = 0;
  // A BLAS called once per op (cblas_?gemm) packs its weight operand into its blocked panels on every call,
  // frozen graph or not; a library that holds packed weights (oneDNN, ACL) packs a frozen weight once.
  bool packs_weights_every_call = false;
  // The precisions the framework runs on this library (all unless the spec names them); false for a
  // precision it routes elsewhere.
  std::array<bool, kPrecisionCount> runs = [] {
    std::array<bool, kPrecisionCount> all{};
    all.fill(true);
    return all;
  }();
  // M x N x K at or below which a GEMM runs on one thread; above it on min(threads, M N K / this) threads
  // (OpenBLAS's interface/gemm.c). 0: every GEMM runs on all the worker's threads.
  double single_thread_gemm_mnk = 0;

  bool runs_precision(Precision p) const { return runs[static_cast<int>(p)]; }
};

struct CpuMathSpec {
  // Dense math per core per clock (2 per fused multiply-add; int8 counted as operations); 0: no unit.
  std::array<double, kPrecisionCount> ops_per_cycle{};
  double memory_bandwidth_per_core = 0;  // bytes/s one core streams alone (limited by its outstanding misses)
  double l2_per_core = 0;                // bytes
  double llc = 0;                        // bytes, one socket's last-level cache, shared by its cores
  // What one core reads from its own L2 per second; 0: cache reuse between ops is not modelled (every op's
  // tensors go to memory).
  double l2_bandwidth_per_core = 0;
  CpuMathLibrary library;                // the framework's default backend on this CPU
  std::vector<CpuMathLibrary> backends;  // others a run may choose (workload.cpu_backend)

  bool present() const { return ops_per_cycle[static_cast<int>(Precision::fp32)] > 0; }
  double ops_per_cycle_at(Precision p) const { return ops_per_cycle[static_cast<int>(p)]; }
  // The default library or a backend by name; nullptr when this CPU has none of that name.
  const CpuMathLibrary* find_library(const std::string& name) const;
  std::string library_names() const;  // "onednn, openblas": for error messages
};

const Schema& cpu_math_schema();
// Reads a validated `math:` section; ConfigError at the offending key.
CpuMathSpec parse_cpu_math(const ConfigNode& math);

}  // namespace hpcsim

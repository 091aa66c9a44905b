#pragma once
// Time of one deep-learning op on CPU cores: a roofline per op class with the math library's achieved
// fractions, on the cores the op actually uses (a small op does not split over every thread), plus the
// parallel region's fork/join cost. Host dispatch by the framework is the caller's (it is not the CPU's).
#include "models/cpu/cpu_op_class.h"
#include "models/gpu/precision.h"
#include "models/node/node_spec.h"

namespace hpcsim {

struct CpuOp {
  CpuOpClass op_class = CpuOpClass::streaming;
  Precision math = Precision::fp32;  // what the math units run (bf16 under Arm fast math)
  double flops = 0;
  double bytes = 0;                  // moved between the cores and memory
  double output_elements = 0;        // how finely the op splits over threads
  double cached_bytes = 0;           // read and written in the worker's caches (see CpuWorker::cache_bytes)
  // Read from memory and copied into the library's packed layout before the math that uses it starts (a
  // BLAS packs its operand panel by panel, then computes on the packed copy): not overlapped with the math.
  double packed_bytes = 0;
};

// One worker: an intra-op thread pool on `threads` cores, and the memory bandwidth it can draw while the
// instance's other workers stream too.
struct CpuWorker {
  int threads = 1;
  double memory_bandwidth = 0;  // bytes/s, before the library's achieved fraction
  // The caches the worker's tensors can stay in between ops: its cores' L2s and its share of the sockets'
  // last-level caches (the workers split them evenly). 0 when the spec has no l2_bandwidth_per_core.
  double cache_bytes = 0;
};

// `workers` workers of `threads` threads each on the node's cores. Hardware threads beyond one per core
// add no math units, so threads count cores up to the node's; a worker streams at most threads x what one
// core streams, and the workers share the sockets' bandwidth. std::invalid_argument when the node has no
// `cpu.math` or the workers need more hardware threads than the node has.
CpuWorker cpu_worker(const CpuSpec& cpu, int threads, int workers);

// The clock an op's math runs at. GEMMs and convolutions run the cores' widest units (AVX-512 FMAs, VNNI,
// AMX tiles) on every core of a worker at once, and Intel cores drop to a licence clock below the all-core
// turbo for such code (Intel's AVX-512 frequency tables; travisdowns.github.io, "Ice Lake AVX-512
// Downclocking", 2020, on the mechanism): the spec's `cpu.clocks.vector` where it gives one, which HPL runs
// at too (models/cpu/omp_region). Streaming ops, and a spec without the HPC clocks, run at `cpu.clock`.
double cpu_math_clock_hz(const CpuSpec& cpu, const CpuOp& op);

// Threads an op of `output_elements` runs on: GEMMs and convolutions split over every thread (the
// libraries block the output finely) unless the library runs small products on fewer
// (`single_thread_gemm_mnk`); streaming ops take one thread per grain of output.
int cpu_op_threads(const CpuSpec& cpu, const CpuOp& op, const CpuWorker& worker);

// max(math time, memory time) on the op's threads (math at cpu_math_clock_hz), plus the packing pass (packed_bytes at the memory
// bandwidth), plus one fork/join when it runs on more than one; the memory time is the bytes at the memory
// bandwidth plus the cached bytes at the threads' L2 bandwidth.
// std::invalid_argument when the cores have no unit for op.math.
double cpu_op_time_s(const CpuSpec& cpu, const CpuOp& op, const CpuWorker& worker);

}  // namespace hpcsim

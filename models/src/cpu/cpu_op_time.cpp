#include "models/cpu/cpu_op_time.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace hpcsim {

CpuWorker cpu_worker(const CpuSpec& cpu, int threads, int workers) {
  if (!cpu.math.present()) throw std::invalid_argument("CPU " + cpu.model + " has no cpu.math section");
  if (threads < 1 || workers < 1) throw std::invalid_argument("threads and workers must be at least 1");
  const int cores = cpu.sockets * cpu.cores_per_socket;
  const int hw_threads = cores * cpu.threads_per_core;
  if (threads * workers > hw_threads) {
    throw std::invalid_argument(std::to_string(workers) + " workers x " + std::to_string(threads) +
                                " threads need more than the " + std::to_string(hw_threads) + " hardware threads of " +
                                cpu.model);
  }
  CpuWorker w;
  // Threads sharing a core through SMT share its math units: a worker computes on its share of the cores.
  w.threads = std::max(1, std::min(threads, cores / workers));
  const double sockets_bandwidth = cpu.sockets * cpu.memory_bandwidth_per_socket;
  w.memory_bandwidth = std::min(w.threads * cpu.math.memory_bandwidth_per_core, sockets_bandwidth / workers);
  if (cpu.math.l2_bandwidth_per_core > 0) {
    w.cache_bytes = w.threads * cpu.math.l2_per_core + cpu.math.llc * cpu.sockets / workers;
  }
  return w;
}

double cpu_math_clock_hz(const CpuSpec& cpu, const CpuOp& op) {
  const bool dense = op.op_class == CpuOpClass::gemm || op.op_class == CpuOpClass::conv;
  return dense && cpu.hpc.clocks.vector_hz > 0 ? cpu.hpc.clocks.vector_hz : cpu.clock_hz;
}

int cpu_op_threads(const CpuSpec& cpu, const CpuOp& op, const CpuWorker& worker) {
  if (op.op_class != CpuOpClass::streaming) {
    // OpenBLAS (interface/gemm.c): one thread while M N K <= SMP_THRESHOLD_MIN x GEMM_MULTITHREAD_THRESHOLD,
    // else M N K / that many threads, at most all of them. A product's M N K is half its FLOPs.
    const double single = cpu.math.library.single_thread_gemm_mnk;
    if (single <= 0) return worker.threads;
    const double by_size = std::floor(op.flops / 2 / single);
    return static_cast<int>(std::clamp(by_size, 1.0, static_cast<double>(worker.threads)));
  }
  const double grains = std::ceil(op.output_elements / cpu.math.library.grain_elements);
  return static_cast<int>(std::clamp(grains, 1.0, static_cast<double>(worker.threads)));
}

double cpu_op_time_s(const CpuSpec& cpu, const CpuOp& op, const CpuWorker& worker) {
  const CpuMathLibrary& lib = cpu.math.library;
  const int threads = cpu_op_threads(cpu, op, worker);
  double math_s = 0;
  if (op.flops > 0) {
    const double per_cycle = cpu.math.ops_per_cycle_at(op.math);
    if (per_cycle <= 0) {
      throw std::invalid_argument(cpu.model + " has no " + std::string(to_string(op.math)) + " math units");
    }
    const double achieved = op.op_class == CpuOpClass::gemm   ? lib.gemm
                            : op.op_class == CpuOpClass::conv ? lib.conv
                                                              : 1.0;  // streaming ops are bound by memory
    math_s = op.flops / (threads * cpu_math_clock_hz(cpu, op) * per_cycle * achieved);
  }
  const double bandwidth = std::min(worker.memory_bandwidth, threads * cpu.math.memory_bandwidth_per_core);
  double memory_s = op.bytes / (bandwidth * lib.memory);
  if (op.cached_bytes > 0) {
    if (cpu.math.l2_bandwidth_per_core <= 0) throw std::invalid_argument(cpu.model + " has no l2_bandwidth_per_core");
    memory_s += op.cached_bytes / (threads * cpu.math.l2_bandwidth_per_core);
  }
  const double packing_s = op.packed_bytes / (bandwidth * lib.memory);
  return std::max(math_s, memory_s) + packing_s + (threads > 1 ? lib.fork_join_s : 0.0);
}

}  // namespace hpcsim

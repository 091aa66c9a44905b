#include "models/cpu/omp_region.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "configs/enum_names.h"

namespace hpcsim {

namespace {

// Fraction of a thread's FP64 vector peak each kernel's inner loop reaches when its data is in cache.
// dgemm: the spec's own dgemm_efficiency (sourced per CPU). The others are bandwidth-bound on every CPU
// shipped (their arithmetic intensity is below 0.25 FLOP/byte, the machine balances above 5), so these
// fractions do not decide their times; they are model constants, not measured: SpMV's gathers keep it
// to scalar rate (1/lanes of the vector peak, taken as 1/8), a stencil sweep vectorizes partly (1/2),
// dot and AXPY fully.
double compute_fraction(const CpuSpec& cpu, HpcKernel kernel) {
  switch (kernel) {
    case HpcKernel::dgemm: return cpu.hpc.dgemm_efficiency;
    case HpcKernel::spmv: return 0.125;
    case HpcKernel::stencil: return 0.5;
    case HpcKernel::dot:
    case HpcKernel::axpy: return 1.0;
  }
  return 1.0;
}

// The clock a kernel's cores run at: DGEMM fills the widest FMA pipes (the vector licence clock); the
// bandwidth-bound kernels leave the cores at their all-core clock.
double clock_for(const CpuSpec& cpu, HpcKernel kernel) {
  return kernel == HpcKernel::dgemm ? cpu.hpc.clocks.vector_hz : cpu.hpc.clocks.all_core_hz;
}

void require_hpc(const CpuSpec& cpu) {
  if (!cpu.hpc.present()) {
    throw std::invalid_argument("the " + (cpu.model.empty() ? std::string("node's CPU") : cpu.model) +
                                " has no HPC description (cpu.clocks, vector, memory, dgemm_efficiency)");
  }
}

}  // namespace

std::string_view to_string(HpcKernel kernel) { return kHpcKernelNames.name(kernel); }

HpcKernelWork dgemm_work(double m, double n, double k) {
  return {HpcKernel::dgemm, 2.0 * m * n * k, 8.0 * (m * k + k * n + 2.0 * m * n), m, n, k};
}
HpcKernelWork spmv_work(double rows, double nonzeros) {
  return {HpcKernel::spmv, 2.0 * nonzeros, 12.0 * nonzeros + 4.0 * rows + 16.0 * rows, rows, 0, 0};
}
HpcKernelWork stencil_work(double cells, int points) {
  return {HpcKernel::stencil, 2.0 * points * cells, 16.0 * cells, cells, 0, 0};
}
HpcKernelWork dot_work(double n) { return {HpcKernel::dot, 2.0 * n, 16.0 * n, n, 0, 0}; }
HpcKernelWork axpy_work(double n) { return {HpcKernel::axpy, 2.0 * n, 24.0 * n, n, 0, 0}; }

double cpu_node_rpeak(const CpuSpec& cpu) {
  if (!cpu.hpc.present()) return 0;
  return cpu.sockets * cpu.cores_per_socket * cpu.hpc.clocks.base_hz * cpu.hpc.vector.flops_per_cycle(64);
}

double cpu_core_vector_peak(const CpuSpec& cpu) {
  require_hpc(cpu);
  return cpu.hpc.clocks.vector_hz * cpu.hpc.vector.flops_per_cycle(64);
}

double socket_bandwidth(const CpuSpec& cpu, int threads) {
  require_hpc(cpu);
  return std::min(threads * cpu.hpc.memory.stream_per_core, cpu.hpc.memory.stream_per_socket);
}

// EPCC's OpenMP syncbench (Bull, Reid, McDonnell) and Iwainsky et al. (Euro-Par 2015, "How many threads
// will be too many?") find PARALLEL and BARRIER costs growing about logarithmically in threads on current
// runtimes (tree barriers), of the order of a microsecond at tens of threads. The constants are that
// order of magnitude, UNSURE, not fitted to anything here.
double omp_fork_join_s(int threads) {
  return threads <= 1 ? 0.0 : 0.5e-6 + 0.25e-6 * std::log2(static_cast<double>(threads));
}
double omp_barrier_s(int threads) {
  return threads <= 1 ? 0.0 : 0.2e-6 * std::log2(static_cast<double>(threads));
}

OmpRegionTime omp_region_time(const CpuSpec& cpu, const HpcKernelWork& work, const OmpPlacement& placement) {
  require_hpc(cpu);
  if (placement.threads < 1 || placement.sockets < 1 || placement.sockets > cpu.sockets ||
      placement.threads > placement.sockets * cpu.cores_per_socket) {
    throw std::invalid_argument(std::to_string(placement.threads) + " threads on " + std::to_string(placement.sockets) +
                                " sockets do not fit the " + std::to_string(cpu.cores_per_socket) + "-core sockets");
  }
  OmpRegionTime t;
  const double per_thread = clock_for(cpu, work.kernel) * cpu.hpc.vector.flops_per_cycle(64) * compute_fraction(cpu, work.kernel);
  t.compute_s = work.flops / (per_thread * placement.threads);
  // Threads spread evenly over the sockets; each socket's share of the bytes at that socket's saturating
  // bandwidth, the remote share at the remote fraction of it.
  const int per_socket = (placement.threads + placement.sockets - 1) / placement.sockets;
  const int busy = std::max(placement.socket_threads, per_socket);
  const double local_bw = socket_bandwidth(cpu, busy) * per_socket / busy * placement.sockets;
  const double remote = std::clamp(placement.remote_fraction, 0.0, 1.0);
  t.memory_s = work.bytes * ((1.0 - remote) / local_bw + remote / (local_bw * cpu.hpc.numa.remote_bandwidth));
  t.overhead_s = omp_fork_join_s(placement.threads);
  t.total_s = std::max(t.compute_s, t.memory_s) + t.overhead_s;
  return t;
}

}  // namespace hpcsim

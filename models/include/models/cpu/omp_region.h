#pragma once
// One OpenMP parallel region of an HPC kernel on a CPU node's cores: a roofline per thread with the memory
// bandwidth of a socket shared by the threads on it (each thread streams at most what one core streams
// alone, the socket at most its measured STREAM bandwidth: bandwidth saturates with thread count), NUMA
// placement (the share of the bytes first touch put on another socket's memory, read at the spec's remote
// fraction), and the region's fork/join and barrier costs by thread count. Needs the node spec's HPC
// description (CpuSpec::hpc, cpu_hpc_spec.h).
#include <string_view>

#include "configs/enum_names.h"
#include "models/node/node_spec.h"

namespace hpcsim {

enum class HpcKernel { dgemm, spmv, stencil, dot, axpy };
inline constexpr EnumNames<HpcKernel, 5> kHpcKernelNames{{{
    {HpcKernel::dgemm, "dgemm"}, {HpcKernel::spmv, "spmv"}, {HpcKernel::stencil, "stencil"},
    {HpcKernel::dot, "dot"}, {HpcKernel::axpy, "axpy"}}}};
std::string_view to_string(HpcKernel kernel);

// The work of one region; build it with the kernel helpers below.
struct HpcKernelWork {
  HpcKernel kernel = HpcKernel::axpy;
  double flops = 0;   // FP64
  double bytes = 0;   // moved between the cores and memory
  double m = 0, n = 0, k = 0;  // dgemm: C (m x n) += A (m x k) B (k x n)
};

// C (m x n) += A (m x k) B (k x n): 2mnk FLOP; A and B read once, C read and written once (a blocked DGEMM
// keeps its blocks in cache, so its memory traffic is the operands once each).
HpcKernelWork dgemm_work(double m, double n, double k);
// y = A x, CSR with `nonzeros` entries over `rows` rows: 2 FLOP per entry; the matrix (8-byte value, 4-byte
// column index per entry, 4-byte row pointer per row), x read once (cache reuse assumed) and y written.
HpcKernelWork spmv_work(double rows, double nonzeros);
// One sweep of a `points`-point stencil over `cells` cells: 2 FLOP per point per cell; one array read and
// one written per sweep (the neighbours come from cache: layer conditions hold).
HpcKernelWork stencil_work(double cells, int points);
HpcKernelWork dot_work(double n);   // 2n FLOP, two vectors read
HpcKernelWork axpy_work(double n);  // 2n FLOP, two read, one written

struct OmpPlacement {
  int threads = 1;
  int sockets = 1;              // the threads spread evenly over this many sockets
  double remote_fraction = 0;   // of the bytes, on another socket's memory (first touch by another thread)
  // Threads streaming on each of those sockets at once, this region's and other ranks' (they share the
  // socket's bandwidth evenly); 0: this region's threads alone.
  int socket_threads = 0;
};

struct OmpRegionTime {
  double compute_s = 0;
  double memory_s = 0;
  double overhead_s = 0;  // fork/join and the closing barrier
  double total_s = 0;     // max(compute, memory) + overhead
};

// FP64 peak of the node at the nominal clock: sockets x cores x base clock x FLOP per cycle (the TOP500's
// Rpeak arithmetic). 0 when the spec has no HPC description.
double cpu_node_rpeak(const CpuSpec& cpu);
// FP64 FLOP/s one core computes at the vector clock.
double cpu_core_vector_peak(const CpuSpec& cpu);
// Bytes/s `threads` threads on one socket stream: min(threads x per-core, STREAM of the socket).
double socket_bandwidth(const CpuSpec& cpu, int threads);
// Fork/join of one parallel region and one barrier on `threads` threads (a tree: logarithmic in threads).
double omp_fork_join_s(int threads);
double omp_barrier_s(int threads);

// Time of one region. std::invalid_argument when the spec has no HPC description or the placement asks for
// more cores than the sockets have.
OmpRegionTime omp_region_time(const CpuSpec& cpu, const HpcKernelWork& work, const OmpPlacement& placement);

}  // namespace hpcsim

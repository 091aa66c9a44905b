#pragma once
// What classic HPC codes (HPL, stencils, SpMV) need of a CPU beyond the node spec's summary: the clocks the
// cores run at (nominal, all-core, and all-core under the widest SIMD code, which is what HPL runs at), the
// SIMD width and FMA pipes that give FLOP per cycle by precision, caches per level, the memory system
// (channels, DIMM speed, measured STREAM per socket), NUMA domains and the link between sockets. All of it
// is the optional `cpu:` keys clocks / vector / caches / memory / numa of a node spec; a spec without them
// keeps every earlier behaviour (present() is false and nothing reads them).
#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

struct CpuClocks {
  double base_hz = 0;      // the nominal clock (the one the CPU is sold at)
  double all_core_hz = 0;  // every core busy with scalar or narrow-SIMD code
  double vector_hz = 0;    // every core busy with the widest FMA code (Intel's AVX-512 / AVX licence clock)
};

struct CpuVector {
  int simd_bits = 0;  // width of one FMA pipe's registers (128 NEON/SVE-128, 256 AVX2, 512 AVX-512/SVE-512)
  int fma_pipes = 0;  // FMA pipes per core that take the widest vectors
  // FLOP per core per clock for an element of `bits` bits (64: FP64): 2 (multiply + add) x lanes x pipes.
  double flops_per_cycle(int bits) const { return 2.0 * fma_pipes * simd_bits / bits; }
};

struct CpuCaches {
  double l1d_per_core = 0;   // bytes
  double l2_per_core = 0;    // bytes
  double l3_per_socket = 0;  // bytes (0: none, as on A64FX, whose L2 is the last level)
};

struct CpuMemorySystem {
  int channels_per_socket = 0;
  double dimm_mts = 0;                  // transfers per second of one channel (DDR4-3200: 3.2e9); 0 for HBM
  double stream_per_socket = 0;         // bytes/s, measured STREAM triad on one socket, every core
  double stream_per_core = 0;           // bytes/s one core streams alone (its outstanding misses)
};

struct CpuNuma {
  int domains_per_socket = 1;      // NUMA domains one socket exposes (NPS4, SNC2, CMGs)
  double remote_bandwidth = 0.5;   // a domain's bandwidth to another socket's memory, as a fraction of local
  double socket_link_bandwidth = 0;  // bytes/s between two sockets, per direction (UPI, xGMI); 0: not given
};

struct CpuHpcSpec {
  CpuClocks clocks;
  CpuVector vector;
  CpuCaches caches;
  CpuMemorySystem memory;
  CpuNuma numa;
  // Fraction of the FP64 peak at the vector clock that a tuned DGEMM (MKL, BLIS, SSL2) reaches on large
  // square matrices on every core of a node; the spec's source says where it comes from.
  double dgemm_efficiency = 0;

  bool present() const { return vector.simd_bits > 0; }
};

// The optional keys of the node spec's `cpu:` map that fill a CpuHpcSpec, for node_spec_schema.
std::vector<Field> cpu_hpc_fields();
// Reads them from a validated `cpu:` map; all or none of clocks, vector, memory must be given (ConfigError
// at the map otherwise), and clocks must satisfy vector <= all-core.
CpuHpcSpec parse_cpu_hpc(const ConfigNode& cpu);

}  // namespace hpcsim

#include "models/cpu/cpu_hpc_spec.h"

#include "configs/config_error.h"

namespace hpcsim {

namespace {

Schema freq() { return Schema::quantity(Dimension::frequency).positive(); }
Schema bytes() { return Schema::quantity(Dimension::bytes).positive(); }
Schema bandwidth() { return Schema::quantity(Dimension::bandwidth).positive(); }

}  // namespace

std::vector<Field> cpu_hpc_fields() {
  return {
      optional("clocks",
               Schema::map({
                   required("base", freq(), "the nominal clock the CPU is sold at"),
                   required("all_core", freq(), "every core busy with scalar or narrow-SIMD code"),
                   required("vector", freq(),
                            "every core busy with the widest FMA code (Intel's AVX-512 or AVX licence clock; "
                            "what HPL and DGEMM run at)"),
               }),
               "the clocks the cores run at (HPC codes)", "none: no HPC model of this CPU"),
      optional("vector",
               Schema::map({
                   required("simd_bits", Schema::integer().at_least(128).at_most(512),
                            "width of one FMA pipe's vectors in bits (128 NEON/SVE-128, 256 AVX2, 512 AVX-512)"),
                   required("fma_pipes", Schema::integer().at_least(1).at_most(4),
                            "FMA pipes per core that take the widest vectors; FLOP per cycle = 2 x pipes x "
                            "simd_bits / element bits"),
               }),
               "the cores' SIMD FMA units (HPC codes)", "none: no HPC model of this CPU"),
      optional("caches",
               Schema::map({
                   required("l1d_per_core", bytes(), "L1 data cache per core"),
                   required("l2_per_core", bytes(), "L2 cache per core (A64FX: its CMG's L2 / its cores)"),
                   optional("l3_per_socket", bytes(), "last-level cache of one socket", "none: the L2 is the last level"),
               }),
               "cache sizes per level (HPC codes)", "none"),
      optional("memory",
               Schema::map({
                   required("channels_per_socket", Schema::integer().at_least(1), "memory channels (or HBM stacks) per socket"),
                   optional("dimm_mts", Schema::number().positive(),
                            "DIMM speed in mega-transfers per second (DDR4-3200: 3200)", "none: HBM, no DIMMs"),
                   required("stream_per_socket", bandwidth(), "measured STREAM triad bandwidth of one socket, every core"),
                   required("stream_per_core", bandwidth(), "what one core streams alone"),
               }),
               "the memory system (HPC codes)", "none: no HPC model of this CPU"),
      optional("numa",
               Schema::map({
                   optional("domains_per_socket", Schema::integer().at_least(1), "NUMA domains of one socket (NPS, SNC, CMGs)", "1"),
                   optional("remote_bandwidth", Schema::number().positive().at_most(1),
                            "bandwidth to another socket's memory as a fraction of local", "0.5"),
                   optional("socket_link", bandwidth(), "bandwidth between two sockets per direction (UPI, xGMI)", "none"),
               }),
               "NUMA domains and the socket interconnect (HPC codes)", "one domain per socket, remote at half bandwidth"),
      optional("dgemm_efficiency", Schema::number().positive().at_most(1),
               "fraction of the FP64 peak at the vector clock a tuned DGEMM reaches on large matrices (HPC codes)",
               "none: required with clocks"),
  };
}

CpuHpcSpec parse_cpu_hpc(const ConfigNode& cpu) {
  CpuHpcSpec h;
  const ConfigNode* clocks = cpu.find("clocks");
  const ConfigNode* vector = cpu.find("vector");
  const ConfigNode* memory = cpu.find("memory");
  const ConfigNode* dgemm = cpu.find("dgemm_efficiency");
  const int given = (clocks != nullptr) + (vector != nullptr) + (memory != nullptr) + (dgemm != nullptr);
  if (given == 0) {
    for (const char* key : {"caches", "numa"}) {
      if (const ConfigNode* k = cpu.find(key)) {
        throw ConfigError(k->loc(), std::string("cpu.") + key + " needs cpu.clocks, vector, memory and dgemm_efficiency");
      }
    }
    return h;
  }
  if (given != 4) {
    throw ConfigError(cpu.loc(), "the HPC description of a CPU gives clocks, vector, memory and dgemm_efficiency together");
  }
  h.clocks.base_hz = clocks->get_quantity("base", Dimension::frequency);
  h.clocks.all_core_hz = clocks->get_quantity("all_core", Dimension::frequency);
  h.clocks.vector_hz = clocks->get_quantity("vector", Dimension::frequency);
  if (h.clocks.vector_hz > h.clocks.all_core_hz) {
    throw ConfigError(clocks->at("vector").loc(), "the vector clock cannot exceed the all-core clock");
  }
  h.vector.simd_bits = static_cast<int>(vector->get_int("simd_bits"));
  if (h.vector.simd_bits != 128 && h.vector.simd_bits != 256 && h.vector.simd_bits != 512) {
    throw ConfigError(vector->at("simd_bits").loc(), "simd_bits is 128, 256 or 512");
  }
  h.vector.fma_pipes = static_cast<int>(vector->get_int("fma_pipes"));
  if (const ConfigNode* c = cpu.find("caches")) {
    h.caches.l1d_per_core = c->get_quantity("l1d_per_core", Dimension::bytes);
    h.caches.l2_per_core = c->get_quantity("l2_per_core", Dimension::bytes);
    h.caches.l3_per_socket = c->get_quantity_or("l3_per_socket", Dimension::bytes, 0);
  }
  h.memory.channels_per_socket = static_cast<int>(memory->get_int("channels_per_socket"));
  h.memory.dimm_mts = memory->get_number_or("dimm_mts", 0) * 1e6;
  h.memory.stream_per_socket = memory->get_quantity("stream_per_socket", Dimension::bandwidth);
  h.memory.stream_per_core = memory->get_quantity("stream_per_core", Dimension::bandwidth);
  if (h.memory.stream_per_core > h.memory.stream_per_socket) {
    throw ConfigError(memory->at("stream_per_core").loc(), "one core cannot stream more than its socket");
  }
  if (const ConfigNode* n = cpu.find("numa")) {
    h.numa.domains_per_socket = static_cast<int>(n->get_int_or("domains_per_socket", 1));
    h.numa.remote_bandwidth = n->get_number_or("remote_bandwidth", 0.5);
    h.numa.socket_link_bandwidth = n->get_quantity_or("socket_link", Dimension::bandwidth, 0);
  }
  h.dgemm_efficiency = dgemm->as_number();
  return h;
}

}  // namespace hpcsim

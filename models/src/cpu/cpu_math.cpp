#include "models/cpu/cpu_math.h"

#include "configs/config_error.h"

namespace hpcsim {

namespace {

Schema fraction() { return Schema::number().positive().at_most(1); }
Schema ops() { return Schema::number().at_least(0); }

// The precisions a CPU's math rates are given for, keyed by their names in the precision table.
std::string key(Precision p) { return std::string(to_string(p)); }

}  // namespace

const Schema& cpu_math_schema() {
  static const Schema schema = Schema::map({
      required("ops_per_cycle", Schema::map({
                                    required(key(Precision::fp32), ops().positive(), "fp32 FLOP per core per clock (SIMD FMA pipes)"),
                                    optional(key(Precision::bf16), ops(), "bf16 FLOP per core per clock (BFMMLA, AVX512-BF16, AMX)",
                                             "0: no bf16 unit"),
                                    optional(key(Precision::int8), ops(), "int8 operations per core per clock (SDOT/SMMLA, VNNI, AMX)",
                                             "0: no int8 unit"),
                                }),
               "dense math per core per clock by precision"),
      required("memory_bandwidth_per_core", Schema::quantity(Dimension::bandwidth).positive(),
               "what one core streams from memory alone"),
      optional("l2_per_core", Schema::quantity(Dimension::bytes).positive(), "L2 cache per core", "none"),
      optional("llc", Schema::quantity(Dimension::bytes).positive(), "one socket's last-level cache", "none"),
      optional("l2_bandwidth_per_core", Schema::quantity(Dimension::bandwidth).positive(),
               "what one core reads from its L2; with it, tensors that fit a worker's caches stay there between ops",
               "none: every op's tensors go to memory"),
      required("library", Schema::map({
                              required("name", Schema::string(), "the math library (onednn, acl, openblas)"),
                              required("gemm", fraction(), "fraction of the math peak large GEMMs reach"),
                              required("conv", fraction(), "fraction of the math peak convolutions reach"),
                              required("memory", fraction(), "fraction of the memory bandwidth streaming ops reach"),
                              required("fork_join", Schema::quantity(Dimension::time).positive(),
                                       "one parallel region's start and barrier"),
                              required("grain_elements", Schema::number().positive(),
                                       "output elements per thread below which an op uses fewer threads"),
                              optional("weight_reorder", Schema::quantity(Dimension::time).positive(),
                                       "time per weight to reorder fp32 weights into the library's bf16 layout on "
                                       "every eager fast-math call, on any thread count",
                                       "none: the reorder is a streaming pass (read fp32, write bf16)"),
                          }),
               "the deep-learning math library on this CPU"),
  });
  return schema;
}

CpuMathSpec parse_cpu_math(const ConfigNode& math) {
  cpu_math_schema().validate(math);
  CpuMathSpec m;
  const ConfigNode& o = math.at("ops_per_cycle");
  for (Precision p : {Precision::fp32, Precision::bf16, Precision::int8}) {
    if (const ConfigNode* rate = o.find(key(p))) m.ops_per_cycle[static_cast<int>(p)] = rate->as_number();
  }
  m.memory_bandwidth_per_core = math.get_quantity("memory_bandwidth_per_core", Dimension::bandwidth);
  m.l2_per_core = math.get_quantity_or("l2_per_core", Dimension::bytes, 0);
  m.llc = math.get_quantity_or("llc", Dimension::bytes, 0);
  m.l2_bandwidth_per_core = math.get_quantity_or("l2_bandwidth_per_core", Dimension::bandwidth, 0);
  const ConfigNode& lib = math.at("library");
  m.library.name = lib.get_string("name");
  m.library.gemm = lib.at("gemm").as_number();
  m.library.conv = lib.at("conv").as_number();
  m.library.memory = lib.at("memory").as_number();
  m.library.fork_join_s = lib.get_quantity("fork_join", Dimension::time);
  m.library.grain_elements = lib.at("grain_elements").as_number();
  m.library.weight_reorder_s = lib.get_quantity_or("weight_reorder", Dimension::time, 0);
  return m;
}

}  // namespace hpcsim

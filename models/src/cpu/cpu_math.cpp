#include "models/cpu/cpu_math.h"

#include "configs/config_error.h"

namespace hpcsim {

namespace {

Schema fraction() { return Schema::number().positive().at_most(1); }
Schema ops() { return Schema::number().at_least(0); }

// The precisions a CPU's math rates are given for, keyed by their names in the precision table.
std::string key(Precision p) { return std::string(to_string(p)); }

// A math library's section: `library` names itself; a `backends` entry is named by its key.
Schema library_schema(bool named) {
  std::vector<Field> fields;
  if (named) fields.push_back(required("name", Schema::string(), "the math library (onednn, acl, openblas)"));
  for (Field f : {
           required("gemm", fraction(), "fraction of the math peak large GEMMs reach"),
           required("conv", fraction(), "fraction of the math peak convolutions reach"),
           required("memory", fraction(), "fraction of the memory bandwidth streaming ops reach"),
           required("fork_join", Schema::quantity(Dimension::time).positive(), "one parallel region's start and barrier"),
           required("grain_elements", Schema::number().positive(),
                    "output elements per thread below which an op uses fewer threads"),
           optional("weight_reorder", Schema::quantity(Dimension::time).positive(),
                    "time per weight to reorder fp32 weights into the library's bf16 layout on every eager fast-math "
                    "call, on any thread count",
                    "none: the reorder is a streaming pass (read fp32, write bf16)"),
           optional("packs_weights_every_call", Schema::boolean(),
                    "a BLAS called per op (cblas_?gemm) packs its weight operand on every call, even in a frozen graph",
                    "false: a frozen graph's weights are packed once, at load"),
           optional("precisions", Schema::list(Schema::one_of(kPrecisionNames.names({Precision::fp32, Precision::bf16,
                                                                                      Precision::int8})))
                                      .non_empty(),
                    "the precisions the framework runs on this library (bf16: fast math)",
                    "every precision the CPU has math units for"),
           optional("single_thread_gemm_mnk", Schema::number().positive(),
                    "M x N x K at or below which a GEMM runs on one thread; above, on min(threads, MNK / this)",
                    "none: every GEMM runs on all the worker's threads"),
       }) {
    fields.push_back(std::move(f));
  }
  return Schema::map(std::move(fields));
}

CpuMathLibrary parse_library(const ConfigNode& lib, std::string name) {
  CpuMathLibrary l;
  l.name = std::move(name);
  l.gemm = lib.at("gemm").as_number();
  l.conv = lib.at("conv").as_number();
  l.memory = lib.at("memory").as_number();
  l.fork_join_s = lib.get_quantity("fork_join", Dimension::time);
  l.grain_elements = lib.at("grain_elements").as_number();
  l.weight_reorder_s = lib.get_quantity_or("weight_reorder", Dimension::time, 0);
  l.packs_weights_every_call = lib.get_bool_or("packs_weights_every_call", false);
  if (const ConfigNode* precisions = lib.find("precisions")) {
    l.runs.fill(false);
    for (const ConfigNode& p : precisions->items()) l.runs[static_cast<int>(*parse_precision(p.as_string()))] = true;
  }
  l.single_thread_gemm_mnk = lib.get_number_or("single_thread_gemm_mnk", 0);
  return l;
}

}  // namespace

const CpuMathLibrary* CpuMathSpec::find_library(const std::string& name) const {
  if (library.name == name) return &library;
  for (const CpuMathLibrary& b : backends) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::string CpuMathSpec::library_names() const {
  std::string names = library.name;
  for (const CpuMathLibrary& b : backends) names += ", " + b.name;
  return names;
}

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
      required("library", library_schema(true), "the deep-learning math library the framework uses on this CPU"),
      optional("backends", Schema::map_of(library_schema(false)),
               "other math libraries a run may choose by name (workload.cpu_backend), each as `library` without its name",
               "none"),
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
  m.library = parse_library(lib, lib.get_string("name"));
  if (const ConfigNode* backends = math.find("backends")) {
    for (const ConfigNode::Entry& e : backends->entries()) {
      if (e.key == m.library.name) {
        throw ConfigError(e.key_loc, "backend " + e.key + " has the name of this CPU's default library");
      }
      m.backends.push_back(parse_library(e.value, e.key));
    }
  }
  return m;
}

}  // namespace hpcsim

#include "models/gpu/gpu_spec.h"

#include <cmath>
#include <stdexcept>

#include "configs/config_error.h"
#include "models/gpu/occupancy_limits.h"

namespace hpcsim {

namespace {

// A fraction of a peak that real kernels reach: at least 0.1 % (an achievable memory fraction of 1e-300 made
// kernels take 1e298 s, past the simulated time range: tests/fuzz).
Schema fraction() { return Schema::number().at_least(1e-3).at_most(1.0); }
Schema bytes() { return Schema::quantity(Dimension::bytes).at_least(0); }
Schema count() { return Schema::integer().at_least(1); }
Schema cycles() { return Schema::number().positive(); }

// One optional rate per precision; `units` names the execution units for the reference ("vector", "tensor").
Schema rates(const std::string& units) {
  std::vector<Field> fields;
  for (int i = 0; i < kPrecisionCount; ++i) {
    const auto precision = static_cast<Precision>(i);
    const std::string name(to_string(precision));
    const std::string what = precision == Precision::int8 ? "int8 ops" : "dense " + name + " FLOPs";
    // At most a million per SM per clock (Blackwell's dense fp4 is about 69,000): a rate of 1e308 made the
    // GPU's peak infinite and `kernel --explain` printed it (tests/fuzz).
    fields.push_back(optional(name, Schema::number().positive().at_most(1e6),
                              what + " per SM per clock on the " + units + " units (an FMA counts 2)",
                              "none: no " + units + " unit for " + name));
  }
  return Schema::map(std::move(fields));
}

std::vector<std::string> compute_capabilities() { return supported_compute_capabilities(); }

// The `sm:` keys and where each lives in SmLimits. `needed` keys must be stated when no compute
// capability supplies them: occupancy cannot be computed without them.
struct SmField {
  const char* key;
  int SmLimits::*member;
  bool is_bytes;
  bool needed;
  const char* meaning;  // for the reference
};
constexpr SmField kSmFields[] = {
    {"warp_size", &SmLimits::warp_size, false, true, "threads per warp"},
    {"max_warps", &SmLimits::max_warps, false, true, "resident warps per SM"},
    {"max_blocks", &SmLimits::max_blocks, false, true, "resident thread blocks per SM"},
    {"max_threads", &SmLimits::max_threads, false, true, "resident threads per SM"},
    {"max_threads_per_block", &SmLimits::max_threads_per_block, false, false, "threads one block may have"},
    {"registers", &SmLimits::registers, false, false, "32-bit registers per SM"},
    {"max_registers_per_block", &SmLimits::max_registers_per_block, false, false, "32-bit registers one block may use"},
    {"max_registers_per_thread", &SmLimits::max_registers_per_thread, false, false, "32-bit registers one thread may use"},
    {"register_allocation_unit", &SmLimits::register_allocation_unit, false, false, "registers per warp are allocated in multiples of this"},
    {"sub_partitions", &SmLimits::sub_partitions, false, false, "warp-scheduler sub-partitions the register file is split over"},
    {"smem_allocation_granularity", &SmLimits::smem_allocation_granularity, true, true, "shared memory per block is allocated in multiples of this"},
    {"smem_reserved_per_block", &SmLimits::smem_reserved_per_block, true, false, "shared memory the driver reserves per block"},
    {"max_smem_per_block", &SmLimits::max_smem_per_block, true, true, "shared memory one block may use with opt-in"},
    {"default_smem_per_block", &SmLimits::default_smem_per_block, true, false, "shared memory one block may use without opt-in"},
    {"l1_smem", &SmLimits::l1_smem_bytes, true, true, "unified L1 + shared memory per SM"},
    {"smem_banks", &SmLimits::smem_banks, false, false, "shared-memory banks"},
    {"smem_bank_bytes", &SmLimits::smem_bank_bytes, true, false, "width of one shared-memory bank"},
};

std::string show(int value, bool is_bytes) {
  return is_bytes ? format_quantity(value, Dimension::bytes) : std::to_string(value);
}

Schema sm_schema() {
  std::vector<Field> fields;
  const SmLimits fallback;  // what a GPU without a compute capability gets for a key it leaves out
  for (const SmField& f : kSmFields) {
    const int value = fallback.*f.member;
    // Binary units, as the CUDA tables write them (48 KiB, not 49.152 KB).
    const std::string shown = !f.is_bytes ? std::to_string(value)
                              : value > 0 && value % 1024 == 0 ? std::to_string(value / 1024) + " KiB"
                                                               : std::to_string(value) + " B";
    const std::string otherwise = f.needed ? "required without one" : "else " + shown;
    fields.push_back(optional(f.key, f.is_bytes ? bytes() : Schema::integer().at_least(0), f.meaning,
                              "the compute capability's value; " + otherwise));
  }
  fields.push_back(optional("smem_carveouts", Schema::list(bytes()).non_empty(),
                            "shared-memory sizes the SM can be configured for, ascending",
                            "the compute capability's list; required without one"));
  return Schema::map(std::move(fields));
}

// Reads `sm:`. With a compute capability, the CC table supplies every limit and what the spec states must
// agree with it (a spec that disagrees with the published rules is a typo, not a new GPU). Without one
// (AMD), the spec must state the limits occupancy needs.
SmLimits parse_sm(const ConfigNode& spec, const std::string& cc) {
  const SmLimits* table = cc.empty() ? nullptr : sm_limits_for_cc(cc);
  SmLimits sm = table ? *table : SmLimits{};
  const ConfigNode* node = spec.find("sm");
  if (node == nullptr) {
    if (table == nullptr) throw ConfigError(spec.loc(), "missing required key 'sm' (no compute capability gives it)");
    return sm;
  }
  for (const SmField& f : kSmFields) {
    const ConfigNode* value = node->find(f.key);
    if (value == nullptr) {
      if (table == nullptr && f.needed) {
        throw ConfigError(node->loc(), std::string("missing required key '") + f.key +
                                           "' (no compute capability gives it)");
      }
      continue;
    }
    const double read = f.is_bytes ? value->as_quantity(Dimension::bytes) : static_cast<double>(value->as_int());
    const int v = static_cast<int>(std::llround(read));
    // A limit occupancy divides by or fills: zero is no SM (an `internal error` in the kernel model).
    if (f.needed && v < 1) throw ConfigError(value->loc(), std::string(f.key) + " must be at least 1");
    if (table != nullptr && v != (*table).*f.member) {
      throw ConfigError(value->loc(), std::string(f.key) + " is " + show(v, f.is_bytes) + " but compute capability " +
                                          cc + " has " + show((*table).*f.member, f.is_bytes));
    }
    sm.*f.member = v;
  }
  if (const ConfigNode* carveouts = node->find("smem_carveouts")) {
    std::vector<int> read;
    for (const ConfigNode& item : carveouts->items()) {
      const int v = static_cast<int>(std::llround(item.as_quantity(Dimension::bytes)));
      if (!read.empty() && v <= read.back()) throw ConfigError(item.loc(), "smem_carveouts must be ascending");
      read.push_back(v);
    }
    if (table != nullptr && read != table->smem_carveouts) {
      throw ConfigError(carveouts->loc(), "smem_carveouts differ from compute capability " + cc + "'s");
    }
    // A block may use max_smem_per_block only if some carveout holds it: else a launch the kernel model
    // sizes to that limit fits no SM (found by tests/fuzz as an internal error).
    if (!read.empty() && read.back() < sm.max_smem_per_block) {
      throw ConfigError(carveouts->loc(), "the largest of smem_carveouts, " + show(read.back(), true) +
                                              ", is less than max_smem_per_block, " + show(sm.max_smem_per_block, true));
    }
    sm.smem_carveouts = std::move(read);
  } else if (table == nullptr) {
    throw ConfigError(node->loc(), "missing required key 'smem_carveouts' (no compute capability gives it)");
  }
  return sm;
}

}  // namespace

const Schema& gpu_spec_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      required("vendor", Schema::one_of({"nvidia", "amd", "intel"}), "who makes it; CUDA occupancy rules apply to nvidia"),
      optional("compute_capability", Schema::one_of(compute_capabilities()),
               "CUDA compute capability; its table supplies and checks the `sm` limits",
               "none: required for nvidia, absent for amd"),
      required("sm_count", count(), "streaming multiprocessors (AMD: compute units)"),
      required("clocks", Schema::map({
                             optional("base", Schema::quantity(Dimension::frequency).positive(),
                                      "base clock (descriptive: no peak is quoted at it)", "unknown"),
                             required("boost", Schema::quantity(Dimension::frequency).positive(),
                                      "maximum boost clock: vector and FP64 peaks are quoted at it"),
                             optional("tensor", Schema::quantity(Dimension::frequency).positive(),
                                      "clock the reduced-precision tensor peaks are quoted at; at most boost",
                                      "clocks.boost"),
                         }), "the clocks peaks are quoted at"),
      optional("sm", sm_schema(),
               "per-SM resource limits that decide occupancy (stated values must match the compute capability)",
               "the compute capability's table; required without one"),
      required("memory", Schema::map({
                             required("capacity", Schema::quantity(Dimension::bytes).positive(), "device memory (HBM, GDDR) capacity"),
                             required("bandwidth", Schema::quantity(Dimension::bandwidth).positive(),
                                      "device memory bandwidth, datasheet peak"),
                             required("l2", Schema::quantity(Dimension::bytes).positive().at_most(1073741824.0),
                                      "L2 cache size (at most 1 GiB: WarpSim holds every line)"),
                             required("l2_bandwidth", Schema::quantity(Dimension::bandwidth).positive(),
                                      "L2 cache bandwidth, measured or derived"),
                             required("l1_bytes_per_clock_per_sm", Schema::number().positive().at_most(1e6),
                                      "L1 / shared-memory bytes one SM moves per clock"),
                             optional("sector", Schema::quantity(Dimension::bytes).positive(),
                                      "memory access sector size", "32 B"),
                             optional("cache_line", Schema::quantity(Dimension::bytes).positive(), "cache line size",
                                      "128 B"),
                             required("latency_cycles", Schema::map({
                                                            required("l1", cycles(), "L1 hit, core cycles"),
                                                            required("smem", cycles(), "shared-memory access, core cycles"),
                                                            required("l2", cycles(), "L2 hit, core cycles"),
                                                            required("hbm", cycles(), "device memory access, core cycles"),
                                                        }), "load-to-use latencies in core cycles"),
                         }), "device memory and caches"),
      required("flops_per_clock_per_sm", Schema::map({
                                             required("vector", rates("vector"),
                                                      "vector (CUDA-core, SIMT) units, by precision"),
                                             optional("tensor", rates("tensor"),
                                                      "tensor (matrix) units, by precision", "none: no tensor units"),
                                         }),
               "dense math rates; a peak is rate x sm_count x the clock it is quoted at"),
      required("sfu_lanes_per_sm", count(),
               "special-function (MUFU) lanes per SM: exp2, reciprocal and square-root results per clock "
               "(a fused attention kernel's softmax exponentials)"),
      required("achievable", Schema::map({
                                 required("matmul", fraction(),
                                          "fraction of the peak (tensor units where present) large well-shaped GEMMs "
                                          "reach; configs/calibration.yaml fills it in when absent"),
                                 required("memory", fraction(), "fraction of memory.bandwidth streaming kernels reach"),
                                 optional("simt_matmul", fraction(),
                                          "fraction of the vector peak SIMT (CUDA-core) GEMMs reach",
                                          "configs/calibration.yaml's value, else 1"),
                                 optional("pointwise_memory", fraction(),
                                          "fraction of the streaming bandwidth a framework's pointwise kernels reach",
                                          "configs/calibration.yaml's value, else 1"),
                             }), "fractions of the peaks that real kernels reach"),
      required("launch_overhead", Schema::quantity(Dimension::time).at_least(0), "GPU-side time to launch one kernel"),
      required("pcie", Schema::map({
                           required("generation", count(), "PCIe generation of the host link"),
                           required("lanes", count(), "PCIe lanes of the host link"),
                       }), "the GPU's PCIe host link (descriptive; the node's `pcie` section is what is modelled)"),
      optional("peer_links", Schema::map({
                                 required("kind", Schema::string(), "link technology, e.g. nvlink4"),
                                 required("ports", count(), "GPU-to-GPU link ports"),
                                 required("bandwidth_per_port", Schema::quantity(Dimension::bandwidth).positive(),
                                          "bandwidth of one port, per direction"),
                             }), "GPU-to-GPU links, NVLink or Infinity Fabric (descriptive; the node's gpu_interconnect is modelled)",
               "none"),
      required("tdp", Schema::quantity(Dimension::power).positive(), "thermal design power (board power limit)"),
      optional("idle_power", Schema::quantity(Dimension::power).positive(),
               "board power while idle (the power model's floor)", "none: a plan refuses nodes with this GPU"),
      optional("warp_sim", Schema::map({
                               required("latency_cycles", Schema::map({
                                                              required("int", cycles(), "INT32 add/multiply-add, dependent issue"),
                                                              required("fp32", cycles(), "FP32 FMA, dependent issue"),
                                                              required("fp64", cycles(), "FP64 FMA, dependent issue"),
                                                              required("sfu", cycles(), "special function (MUFU), dependent issue"),
                                                              required("mma", cycles(), "tensor-core MMA, dependent issue"),
                                                          }), "instruction pipeline latencies in core cycles"),
                               required("int_lanes_per_sm", count(), "INT32 lanes per SM"),
                               optional("sfu_lanes_per_sm", count(), "special-function lanes per SM (must equal the top-level key)",
                                        "the top-level sfu_lanes_per_sm"),
                               required("lsu_lanes_per_sm", count(), "load/store unit lanes per SM"),
                               required("l1_ways", count(), "L1 data cache associativity"),
                               required("l2_ways", count(), "L2 cache associativity"),
                               required("miss_limit_per_sm", count(), "sectors one SM may have outstanding below L1 (MSHRs)"),
                               required("hbm_channels", count(), "independent device-memory channels"),
                           }), "what the warp-level simulator needs beyond the fields above (hpcsim microbench)",
               "none: WarpSim refuses this GPU"),
  });
  return schema;
}

GpuSpec parse_gpu_spec(const ConfigNode& node, std::string name) {
  gpu_spec_schema().validate(node);
  GpuSpec g;
  g.name = std::move(name);
  g.vendor = node.get_string("vendor");
  g.compute_capability = node.get_string_or("compute_capability", "");
  if (g.vendor == "nvidia" && g.compute_capability.empty()) {
    throw ConfigError(node.loc(), "missing required key 'compute_capability' (every NVIDIA GPU has one)");
  }
  g.sm_count = static_cast<int>(node.get_int("sm_count"));

  const ConfigNode& clocks = node.at("clocks");
  g.base_clock_hz = clocks.get_quantity_or("base", Dimension::frequency, 0);
  g.boost_clock_hz = clocks.get_quantity("boost", Dimension::frequency);
  g.tensor_clock_hz = clocks.get_quantity_or("tensor", Dimension::frequency, g.boost_clock_hz);
  if (g.tensor_clock_hz > g.boost_clock_hz) {
    throw ConfigError(clocks.at("tensor").loc(), "the tensor clock cannot exceed the boost clock");
  }
  g.sm = parse_sm(node, g.compute_capability);

  const ConfigNode& memory = node.at("memory");
  g.memory.hbm_bytes = memory.get_quantity("capacity", Dimension::bytes);
  g.memory.hbm_bandwidth = memory.get_quantity("bandwidth", Dimension::bandwidth);
  g.memory.l2_bytes = memory.get_quantity("l2", Dimension::bytes);
  g.memory.l2_bandwidth = memory.get_quantity("l2_bandwidth", Dimension::bandwidth);
  g.memory.l1_bytes_per_clock_per_sm = memory.get_number("l1_bytes_per_clock_per_sm");
  g.memory.sector_bytes = static_cast<int>(memory.get_quantity_or("sector", Dimension::bytes, 32));
  g.memory.cache_line_bytes = static_cast<int>(memory.get_quantity_or("cache_line", Dimension::bytes, 128));
  const ConfigNode& latency = memory.at("latency_cycles");
  g.memory.l1_latency_cycles = latency.get_number("l1");
  g.memory.smem_latency_cycles = latency.get_number("smem");
  g.memory.l2_latency_cycles = latency.get_number("l2");
  g.memory.hbm_latency_cycles = latency.get_number("hbm");

  const ConfigNode& rates = node.at("flops_per_clock_per_sm");
  auto read_rates = [](const ConfigNode* unit, auto& out) {
    if (unit == nullptr) return;
    for (int i = 0; i < kPrecisionCount; ++i) {
      const auto key = to_string(static_cast<Precision>(i));
      if (unit->has(key)) out[i] = unit->get_number(key);
    }
  };
  read_rates(rates.find("vector"), g.vector_flops_per_clock_per_sm);
  // Every GPU has fp32 vector lanes, and the model runs its element-wise kernels on them: without the rate a
  // spec is incomplete (an `internal error` at the first element-wise kernel).
  if (!g.vector_flops_per_clock_per_sm[static_cast<int>(Precision::fp32)]) {
    throw ConfigError(rates.at("vector").loc(), "missing required key 'fp32' (the vector units' fp32 rate: every "
                                                "GPU's element-wise kernels run on them)");
  }
  read_rates(rates.find("tensor"), g.tensor_flops_per_clock_per_sm);

  g.sfu_lanes_per_sm = static_cast<int>(node.get_int("sfu_lanes_per_sm"));
  const ConfigNode& achievable = node.at("achievable");
  g.matmul_fraction = achievable.get_number("matmul");
  g.simt_matmul_fraction = achievable.get_number_or("simt_matmul", 1.0);
  g.pointwise_memory_fraction = achievable.get_number_or("pointwise_memory", 1.0);
  g.memory_fraction = achievable.get_number("memory");
  g.launch_overhead_s = node.get_quantity("launch_overhead", Dimension::time);
  const ConfigNode& pcie = node.at("pcie");
  g.pcie_generation = static_cast<int>(pcie.get_int("generation"));
  g.pcie_lanes = static_cast<int>(pcie.get_int("lanes"));
  if (const ConfigNode* links = node.find("peer_links")) {
    g.nvlink_ports = static_cast<int>(links->get_int("ports"));
    g.nvlink_bandwidth_per_port = links->get_quantity("bandwidth_per_port", Dimension::bandwidth);
  }
  g.tdp_w = node.get_quantity("tdp", Dimension::power);
  g.idle_power_w = node.get_quantity_or("idle_power", Dimension::power, 0);
  if (g.idle_power_w >= g.tdp_w) throw ConfigError(node.at("idle_power").loc(), "idle_power must be below tdp");
  if (const ConfigNode* ws = node.find("warp_sim")) {
    WarpSimSpec w;
    const ConfigNode& lat = ws->at("latency_cycles");
    w.int_latency = lat.get_number("int");
    w.fp32_latency = lat.get_number("fp32");
    w.fp64_latency = lat.get_number("fp64");
    w.sfu_latency = lat.get_number("sfu");
    w.mma_latency = lat.get_number("mma");
    w.int_lanes_per_sm = static_cast<int>(ws->get_int("int_lanes_per_sm"));
    if (const ConfigNode* sfu = ws->find("sfu_lanes_per_sm"); sfu && sfu->as_int() != g.sfu_lanes_per_sm) {
      throw ConfigError(sfu->loc(), "warp_sim.sfu_lanes_per_sm differs from the top-level sfu_lanes_per_sm");
    }
    w.lsu_lanes_per_sm = static_cast<int>(ws->get_int("lsu_lanes_per_sm"));
    w.l1_ways = static_cast<int>(ws->get_int("l1_ways"));
    w.l2_ways = static_cast<int>(ws->get_int("l2_ways"));
    w.miss_limit_per_sm = static_cast<int>(ws->get_int("miss_limit_per_sm"));
    w.hbm_channels = static_cast<int>(ws->get_int("hbm_channels"));
    g.warp_sim = w;
  }
  return g;
}

bool GpuSpec::supports(Precision p) const {
  const int i = static_cast<int>(p);
  return vector_flops_per_clock_per_sm[i].has_value() || tensor_flops_per_clock_per_sm[i].has_value();
}

double GpuSpec::peak_clock_hz(Precision p, MathUnit unit) const {
  return unit == MathUnit::tensor && p != Precision::fp64 ? tensor_clock_hz : boost_clock_hz;
}

double GpuSpec::peak(Precision p, MathUnit unit) const {
  const auto& rates = unit == MathUnit::tensor ? tensor_flops_per_clock_per_sm : vector_flops_per_clock_per_sm;
  const auto& rate = rates[static_cast<int>(p)];
  if (!rate) {
    throw std::invalid_argument("GPU '" + name + "' has no " + std::string(unit == MathUnit::tensor ? "tensor" : "vector") +
                                " unit for " + std::string(to_string(p)));
  }
  return *rate * sm_count * peak_clock_hz(p, unit);
}

double GpuSpec::peak(Precision p) const {
  if (tensor_flops_per_clock_per_sm[static_cast<int>(p)]) return peak(p, MathUnit::tensor);
  if (vector_flops_per_clock_per_sm[static_cast<int>(p)]) return peak(p, MathUnit::vector);
  throw std::invalid_argument("GPU '" + name + "' has no " + std::string(to_string(p)) + " math units");
}

}  // namespace hpcsim

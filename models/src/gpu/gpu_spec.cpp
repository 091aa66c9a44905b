#include "models/gpu/gpu_spec.h"

#include <stdexcept>

namespace hpcsim {

namespace {
Schema flops() { return Schema::quantity(Dimension::compute_rate).positive(); }
Schema fraction() { return Schema::number().positive().at_most(1.0); }
}  // namespace

const Schema& gpu_spec_schema() {
  static const Schema schema = Schema::map({
      optional("extends", Schema::string()),
      required("compute_capability", Schema::one_of({"6.0", "7.0", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0"})),
      required("sm_count", Schema::integer().at_least(1)),
      required("boost_clock", Schema::quantity(Dimension::frequency).positive()),
      required("memory", Schema::map({
                             required("capacity", Schema::quantity(Dimension::bytes).positive()),
                             required("bandwidth", Schema::quantity(Dimension::bandwidth).positive()),
                         })),
      required("peak", Schema::map({
                           optional("fp64", flops()),
                           optional("fp32", flops()),
                           optional("tf32", flops()),
                           optional("fp16", flops()),
                           optional("bf16", flops()),
                           optional("fp8", flops()),
                           optional("int8", flops()),
                       })),
      required("achievable", Schema::map({
                                 required("matmul", fraction()),
                                 required("memory", fraction()),
                             })),
      required("launch_overhead", Schema::quantity(Dimension::time).at_least(0)),
      required("tdp", Schema::quantity(Dimension::power).positive()),
  });
  return schema;
}

GpuSpec parse_gpu_spec(const ConfigNode& node, std::string name) {
  gpu_spec_schema().validate(node);
  GpuSpec g;
  g.name = std::move(name);
  g.compute_capability = node.get_string("compute_capability");
  g.sm_count = static_cast<int>(node.get_int("sm_count"));
  g.boost_clock_hz = node.get_quantity("boost_clock", Dimension::frequency);
  const ConfigNode& memory = node.at("memory");
  g.memory_bytes = memory.get_quantity("capacity", Dimension::bytes);
  g.memory_bandwidth = memory.get_quantity("bandwidth", Dimension::bandwidth);
  const ConfigNode& peak = node.at("peak");
  for (int i = 0; i < kPrecisionCount; ++i) {
    const auto key = to_string(static_cast<Precision>(i));
    if (peak.has(key)) g.peak_flops[i] = peak.get_quantity(key, Dimension::compute_rate);
  }
  const ConfigNode& achievable = node.at("achievable");
  g.matmul_fraction = achievable.get_number("matmul");
  g.memory_fraction = achievable.get_number("memory");
  g.launch_overhead_s = node.get_quantity("launch_overhead", Dimension::time);
  g.tdp_w = node.get_quantity("tdp", Dimension::power);
  return g;
}

double GpuSpec::peak(Precision p) const {
  const auto& v = peak_flops[static_cast<int>(p)];
  if (!v) {
    throw std::invalid_argument("GPU '" + name + "' has no " + std::string(to_string(p)) + " math units");
  }
  return *v;
}

}  // namespace hpcsim

#pragma once
// A GPU as a hardware spec describes it (configs/gpus/*.yaml). Datasheet peaks and the fractions of
// them that real kernels reach are separate fields.
#include <array>
#include <optional>
#include <string>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/gpu/precision.h"

namespace hpcsim {

struct GpuSpec {
  std::string name;
  std::string compute_capability;  // "8.0"
  int sm_count = 0;
  double boost_clock_hz = 0;
  double memory_bytes = 0;
  double memory_bandwidth = 0;     // bytes/s, datasheet
  std::array<std::optional<double>, kPrecisionCount> peak_flops{};  // dense, FLOP/s
  double matmul_fraction = 0;      // of peak that large GEMMs reach
  double memory_fraction = 0;      // of bandwidth that streaming kernels reach
  double launch_overhead_s = 0;
  double tdp_w = 0;

  bool supports(Precision p) const { return peak_flops[static_cast<int>(p)].has_value(); }
  // Throws std::invalid_argument naming the GPU when it has no unit for this precision.
  double peak(Precision p) const;
  double achievable_matmul_flops(Precision p) const { return peak(p) * matmul_fraction; }
  double achievable_memory_bandwidth() const { return memory_bandwidth * memory_fraction; }
};

const Schema& gpu_spec_schema();
// Validates `node` against gpu_spec_schema() and reads it; errors are ConfigErrors with locations.
GpuSpec parse_gpu_spec(const ConfigNode& node, std::string name);

}  // namespace hpcsim

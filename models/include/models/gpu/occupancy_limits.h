#pragma once
// The per-SM limits of each CUDA compute capability, so occupancy can be computed for a CC that no GPU
// spec uses (`hpcsim occupancy --cc 8.7`) and GPU specs can be checked against the published rules.
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu/gpu_spec.h"

namespace hpcsim {

// The limits of a compute capability such as "9.0"; nullptr when hpcsim has no table for it.
const SmLimits* sm_limits_for_cc(std::string_view compute_capability);

// The compute capabilities with a table, ascending.
const std::vector<std::string>& supported_compute_capabilities();

}  // namespace hpcsim

#pragma once
// Electrical power of one node running a full-load code (HPL): what the TOP500 measures beside Rmax and the
// Green500 divides it by. Each part comes from the spec's datasheet figures, and each result says whether it
// is a bound:
// - a GPU node: its GPUs at their activity (power_model.h's line from idle to TDP) and the rest of the node at
//   max_power less the GPUs' TDP, as `hpcsim plan` counts it: an upper bound (the rest's own load is unknown);
// - a CPU node: its packages at their TDP (the sustained power limit an all-core vector code holds them at)
//   and, when the spec gives max_power, the rest at max_power less the packages' TDP; without max_power the
//   packages alone, a lower bound (memory, NICs, fans and power-supply losses are not in it).
#include <optional>

#include "models/node/node_spec.h"

namespace hpcsim {

enum class PowerBound { upper, lower };

struct NodeLoadPower {
  double cpus_w = 0;   // CPU packages (0 on a GPU node: inside other_w)
  double gpus_w = 0;
  double other_w = 0;  // the rest of the node
  PowerBound bound = PowerBound::upper;
  double node_w() const { return cpus_w + gpus_w + other_w; }
};

// The node's power under a full-load run whose `gpus_in_use` GPUs compute `gpu_activity` (0..1) of the time (the
// node's other GPUs idle); std::nullopt when the spec lacks the figures (a GPU node without max_power or GPU idle
// power, a CPU node without tdp).
std::optional<NodeLoadPower> full_load_node_power(const NodeSpec& node, int gpus_in_use, double gpu_activity);

}  // namespace hpcsim

#include "models/power/node_power.h"

#include <algorithm>

#include "models/power/power_model.h"

namespace hpcsim {

std::optional<NodeLoadPower> full_load_node_power(const NodeSpec& node, int gpus_in_use, double gpu_activity) {
  NodeLoadPower p;
  if (node.gpus > 0) {
    if (node.max_power_w <= 0 || node.gpu.idle_power_w <= 0) return std::nullopt;
    const int busy = std::clamp(gpus_in_use, 0, node.gpus);
    p.gpus_w = busy * gpu_power_w(node.gpu.idle_power_w, node.gpu.tdp_w, gpu_activity) +
               (node.gpus - busy) * node.gpu.idle_power_w;
    p.other_w = gpu_node_other_w(node);
    p.bound = PowerBound::upper;
    return p;
  }
  if (node.cpu.tdp_w <= 0) return std::nullopt;
  p.cpus_w = node.cpu.sockets * node.cpu.tdp_w;
  if (node.max_power_w > 0) {
    p.other_w = node.max_power_w - p.cpus_w;
    p.bound = PowerBound::upper;
  } else {
    p.bound = PowerBound::lower;
  }
  return p;
}

}  // namespace hpcsim

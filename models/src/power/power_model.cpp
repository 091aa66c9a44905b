#include "models/power/power_model.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim {

const Schema& switch_spec_schema() {
  static const Schema schema = Schema::map({
      optional("description", Schema::string()),
      required("ports", Schema::integer().at_least(2)),
      required("power", Schema::quantity(Dimension::power).positive()),
  });
  return schema;
}

SwitchSpec parse_switch_spec(const ConfigNode& node, std::string name) {
  switch_spec_schema().validate(node);
  return SwitchSpec{std::move(name), static_cast<int>(node.get_int("ports")), node.get_quantity("power", Dimension::power)};
}

double gpu_power_w(double idle_w, double tdp_w, double activity) {
  return idle_w + (tdp_w - idle_w) * std::clamp(activity, 0.0, 1.0);
}

double gpu_node_other_w(const NodeSpec& node) { return node.max_power_w - node.gpus * node.gpu.tdp_w; }

ClusterPower cluster_power(const ClusterPowerInputs& in, double gpu_activity) {
  ClusterPower p;
  p.gpus_w = static_cast<double>(in.nodes) * in.gpus_per_node * gpu_power_w(in.gpu_idle_w, in.gpu_tdp_w, gpu_activity);
  p.node_other_w = in.nodes * in.node_other_w;
  p.switches_w = in.switches * in.switch_w;
  p.facility_w = p.it_w() * in.pue;
  return p;
}

ClusterPowerInputs power_inputs(const NodeSpec& node, int nodes, int switches, const SwitchSpec& network_switch,
                                double pue) {
  if (node.gpu.idle_power_w <= 0) {
    throw std::invalid_argument("GPU " + node.gpu.name + " has no idle_power in configs/gpus (the power model needs it)");
  }
  if (node.max_power_w <= 0) {
    throw std::invalid_argument("node " + node.name + " has no max_power in configs/nodes (the power model needs it)");
  }
  ClusterPowerInputs in;
  in.nodes = nodes;
  in.gpus_per_node = node.gpus;
  in.gpu_idle_w = node.gpu.idle_power_w;
  in.gpu_tdp_w = node.gpu.tdp_w;
  in.node_other_w = gpu_node_other_w(node);
  in.switches = switches;
  in.switch_w = network_switch.power_w;
  in.pue = pue;
  return in;
}

}  // namespace hpcsim

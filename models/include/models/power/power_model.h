#pragma once
// Electrical power of a training cluster, for energy-to-train estimates (hpcsim plan).
//
// A GPU draws between its idle power and its TDP in proportion to how busy it is (activity: the share of the
// step its SMs compute, 0..1). The node's other parts (CPUs, memory, NICs, fans, power-supply losses) draw
// the node's datasheet maximum less its GPUs' TDP: an upper bound, as their own load is not modelled. Each
// network switch draws its datasheet power. A PUE (power usage effectiveness) scales the IT load to the
// facility's draw (cooling, power distribution).
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/node/node_spec.h"

namespace hpcsim {

// A network switch as configs/switches/*.yaml describes it.
struct SwitchSpec {
  std::string name;
  int ports = 0;        // at the network's rate
  double power_w = 0;   // typical power with its ports in use
};

const Schema& switch_spec_schema();
SwitchSpec parse_switch_spec(const ConfigNode& node, std::string name);

struct ClusterPowerInputs {
  int nodes = 0;
  int gpus_per_node = 0;
  double gpu_idle_w = 0, gpu_tdp_w = 0;
  double node_other_w = 0;  // per node, everything but its GPUs
  int switches = 0;
  double switch_w = 0;
  double pue = 1;
};

struct ClusterPower {
  double gpus_w = 0, node_other_w = 0, switches_w = 0;
  double it_w() const { return gpus_w + node_other_w + switches_w; }
  double facility_w = 0;  // it_w() x PUE
};

// idle + (tdp - idle) x activity, activity clamped to [0, 1].
double gpu_power_w(double idle_w, double tdp_w, double activity);

// Everything of a GPU node but its GPUs: the datasheet max_power less the GPUs' TDP (an upper bound).
double gpu_node_other_w(const NodeSpec& node);

// Power of the whole cluster at this GPU activity.
ClusterPower cluster_power(const ClusterPowerInputs& in, double gpu_activity);

// The inputs for `nodes` nodes of a node spec; std::invalid_argument naming what is missing when the spec
// has no idle_power (its GPU) or no max_power (the node).
ClusterPowerInputs power_inputs(const NodeSpec& node, int nodes, int switches, const SwitchSpec& network_switch,
                                double pue);

}  // namespace hpcsim

#pragma once
// A compute node as configs/nodes/*.yaml describes it: its GPUs, how they reach each other, its NICs.
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "models/gpu/gpu_spec.h"

namespace hpcsim {

struct GpuLinkSpec {
  std::string kind;       // nvswitch, nvlink, pcie
  double bandwidth = 0;   // bytes/s per GPU per direction
  double latency_s = 0;   // per GPU-to-GPU message
};

struct NicSpec {
  int count = 0;
  double rate_bits = 0;   // signalling rate in bits/s as the NIC is sold (e.g. 200 Gb/s)
};

struct NodeSpec {
  std::string name;
  GpuSpec gpu;
  int gpus = 0;
  GpuLinkSpec gpu_link;
  NicSpec nics;
  int cpu_sockets = 0;
  int cpu_cores_per_socket = 0;
  double host_memory_bytes = 0;
};

const Schema& node_spec_schema();
// Validates and reads a node spec; its `gpu:` is looked up in the catalog.
NodeSpec parse_node_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog);

}  // namespace hpcsim

#pragma once
// A compute node as configs/nodes/*.yaml describes it: CPUs and host memory, the PCIe tree, how the GPUs
// reach each other (NVSwitch, NVLink pairs or PCIe) and its NICs. Link technologies are named link specs
// (configs/networks/nvlink3.yaml, pcie4.yaml, ...), read through the catalog.
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "models/cpu/cpu_hpc_spec.h"
#include "models/cpu/cpu_math.h"
#include "models/gpu/gpu_spec.h"
#include "models/network/network_spec.h"

namespace hpcsim {

// What one GPU-to-GPU message inside the node sees when all GPUs sit behind one switch (NVSwitch) or
// when links are not modelled in detail: per-GPU port bandwidth and the per-message latency.
struct GpuLinkSpec {
  std::string kind;       // nvswitch, nvlink (per-pair links), pcie
  double bandwidth = 0;   // bytes/s per GPU per direction (nvswitch); per link (nvlink); 0 for pcie
  double latency_s = 0;   // per GPU-to-GPU message
};

// Direct NVLinks between two GPUs of a node (DGX-1's hybrid cube-mesh has no switch).
struct NvlinkPair {
  int a = 0;
  int b = 0;
  int links = 1;
};

struct NicSpec {
  int count = 0;
  double rate_bits = 0;        // signalling rate in bits/s as the NIC is sold (e.g. 200 Gb/s)
  int rails = 0;               // distinct network planes the NICs feed (NIC i is on rail i % rails)
  bool gpudirect_rdma = true;  // NIC reads/writes GPU memory directly; off: staged through host memory
};

struct CpuSpec {
  std::string model;
  int sockets = 0;
  int cores_per_socket = 0;
  int threads_per_core = 1;               // hardware threads (SMT, Hyper-Threading) per core
  double clock_hz = 0;
  double flops_per_socket = 0;            // FP64 peak, FLOP/s
  double memory_bandwidth_per_socket = 0; // bytes/s
  double tdp_w = 0;                       // each package's sustained power limit (datasheet); 0: not given
  CpuMathSpec math;                       // what inference on the CPU needs (absent: math.present() false)
  CpuHpcSpec hpc;                         // what HPC codes need (absent: hpc.present() false)
};

// GPUs and NICs hang off PCIe switches; a switch's uplink goes to the CPU root complex. GPU i is on switch
// i / gpus_per_switch, NIC j on switch j / nics_per_switch. switches == 0: the tree is not modelled.
struct PcieTreeSpec {
  std::optional<NetworkSpec> link;  // the PCIe generation
  int lanes = 16;                   // per GPU, per NIC and per switch uplink
  int switches = 0;
  int gpus_per_switch = 0;
  int nics_per_switch = 0;
  bool p2p = true;                  // GPU peer-to-peer through the switch; off: staged through the host

  bool modelled() const { return switches > 0 && link.has_value(); }
};

struct NodeSpec {
  std::string name;
  GpuSpec gpu;                             // unset when gpus == 0
  int gpus = 0;
  GpuLinkSpec gpu_link;                    // summary of the GPU interconnect
  std::optional<NetworkSpec> gpu_link_spec;  // the NVLink generation (nvswitch and nvlink kinds)
  int nvlinks_per_gpu = 0;                 // nvswitch: links from each GPU into the switch fabric
  // SMs NCCL's collective kernels hold on each GPU while they run (one CTA per channel, never shared with
  // compute kernels); 0 when the spec does not say, and then no contention is modelled.
  int collective_sms = 0;
  std::vector<NvlinkPair> nvlink_pairs;    // nvlink kind
  NicSpec nics;
  CpuSpec cpu;
  int cpu_sockets = 0;                     // = cpu.sockets (kept for older callers)
  int cpu_cores_per_socket = 0;            // = cpu.cores_per_socket
  double host_memory_bytes = 0;
  double max_power_w = 0;                  // the whole node at full load (datasheet); 0 when not given
  PcieTreeSpec pcie;

  int pcie_switch_of_gpu(int gpu) const { return gpu / pcie.gpus_per_switch; }
  int pcie_switch_of_nic(int nic) const { return nic / pcie.nics_per_switch; }
};

const Schema& node_spec_schema();
// Validates and reads a node spec; `gpu:` is looked up in configs/gpus and link names in configs/networks.
// Inconsistencies (a PCIe tree that cannot hold the GPUs, an NVLink pair naming a GPU the node lacks, GPUs
// without a `gpu:`) are ConfigErrors at the offending key.
NodeSpec parse_node_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog);

}  // namespace hpcsim

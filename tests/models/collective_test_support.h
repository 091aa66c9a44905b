#pragma once
// Helpers the collective tests share: a plain NVSwitch node and a plain network, every other field at its
// default.
#include "models/network/cluster_fabric.h"

namespace hpcsim::test {

inline NodeSpec node_of(int gpus, double link_bw, double link_latency, int nics, double nic_bits) {
  NodeSpec n;
  n.name = "test-node";
  n.gpus = gpus;
  n.gpu_link = GpuLinkSpec{"nvswitch", link_bw, link_latency};
  n.nics.count = nics;
  n.nics.rate_bits = nic_bits;
  return n;
}

inline NetworkSpec net_of(double bytes_per_s, double latency) {
  NetworkSpec net;
  net.name = "test-net";
  net.rate = bytes_per_s;
  net.mtu_bytes = 4096;
  net.max_mtu_bytes = 4096;
  net.software_latency_s = latency;
  return net;
}

}  // namespace hpcsim::test

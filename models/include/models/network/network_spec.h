#pragma once
// A link technology as configs/networks/*.yaml describes it: cluster networks (InfiniBand, RoCE, TCP over
// Ethernet, Omni-Path, EFA) and the links inside a node (NVLink, PCIe) share one description.
#include <string>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/network/routing.h"

namespace hpcsim {

struct NetworkSpec {
  std::string name;
  double rate = 0;                 // signalling (line) rate of one port of `lanes` lanes, bytes/s, per direction
  int lanes = 1;                   // the width `rate` is quoted for (a node may use a link narrower or wider)
  double encoding_efficiency = 1;  // data bits per line bit after line coding and FEC
  double mtu_bytes = 0;            // the configured MTU (a setting: see with_mtu)
  double max_mtu_bytes = 0;        // the largest MTU the technology allows
  double mtu_header_bytes = 0;     // protocol headers counted inside the MTU (IP + TCP for Ethernet)
  double header_bytes = 0;         // per-packet bytes on the wire outside the MTU (framing, link headers, CRCs)
  double switch_latency_s = 0;     // per switch hop
  double software_latency_s = 0;   // per message at the end hosts (stack, driver, NIC)
  // MPI's eager/rendezvous switch on this network: messages below go eager (the data leaves at once and
  // the receiver buffers it), others rendezvous (a handshake, then the data). Key `eager_threshold`;
  // default kDefaultEagerThreshold.
  double eager_threshold_bytes = kDefaultEagerThreshold;
  // Open MPI's ob1 TCP BTL eager limit (btl_tcp_eager_limit, 64 KiB): the threshold where a spec states none.
  static constexpr double kDefaultEagerThreshold = 65536;
  // LogGP o of an MPI library on this network, at the sender and again at the receiver (key `mpi_overhead`,
  // default 0): only MPI's point-to-point model (models/mpi) adds it; software_latency stays the stack's.
  double mpi_overhead_s = 0;
  Routing routing = Routing::ecmp;  // how switches choose among equally short next hops (a setting: cluster.routing)

  // Data rate after encoding: what the technology is sold at (e.g. 200 Gb/s for HDR).
  double data_rate() const { return rate * encoding_efficiency; }
  // Payload bytes/s one port carries: the data rate times payload / wire bytes of an MTU-sized packet.
  double payload_bandwidth() const;
  // Payload bandwidth of a link `lanes` wide (PCIe x8 vs x16, say).
  double payload_bandwidth(int lanes) const { return payload_bandwidth() * lanes / this->lanes; }
  // The same technology run with another MTU; std::invalid_argument when outside (headers, max_mtu].
  NetworkSpec with_mtu(double mtu_bytes) const;
};

const Schema& network_spec_schema();
// Validates and reads a link spec. An MTU above max_mtu or not above its in-MTU headers is a ConfigError.
NetworkSpec parse_network_spec(const ConfigNode& node, std::string name);

}  // namespace hpcsim

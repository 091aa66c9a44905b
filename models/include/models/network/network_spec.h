#pragma once
// A link technology as configs/networks/*.yaml describes it.
#include <string>

#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

struct NetworkSpec {
  std::string name;
  double rate = 0;                 // line rate, bytes/s
  double encoding_efficiency = 1;  // payload bits per line bit after encoding/FEC
  double mtu_bytes = 0;
  double header_bytes = 0;         // per-packet framing and protocol headers
  double switch_latency_s = 0;     // per hop
  double software_latency_s = 0;   // per message at the end hosts

  // Payload bytes/s one port carries: line rate less encoding, less headers per MTU-sized packet.
  double payload_bandwidth() const;
};

const Schema& network_spec_schema();
NetworkSpec parse_network_spec(const ConfigNode& node, std::string name);

}  // namespace hpcsim

#include "models/network/network_spec.h"

namespace hpcsim {

const Schema& network_spec_schema() {
  static const Schema schema = Schema::map({
      optional("extends", Schema::string()),
      required("rate", Schema::quantity(Dimension::bandwidth).positive()),
      required("encoding_efficiency", Schema::number().positive().at_most(1.0)),
      required("mtu", Schema::quantity(Dimension::bytes).at_least(64)),
      required("header_bytes", Schema::quantity(Dimension::bytes).at_least(0)),
      required("switch_latency", Schema::quantity(Dimension::time).at_least(0)),
      required("software_latency", Schema::quantity(Dimension::time).at_least(0)),
  });
  return schema;
}

NetworkSpec parse_network_spec(const ConfigNode& node, std::string name) {
  network_spec_schema().validate(node);
  NetworkSpec n;
  n.name = std::move(name);
  n.rate = node.get_quantity("rate", Dimension::bandwidth);
  n.encoding_efficiency = node.get_number("encoding_efficiency");
  n.mtu_bytes = node.get_quantity("mtu", Dimension::bytes);
  n.header_bytes = node.get_quantity("header_bytes", Dimension::bytes);
  n.switch_latency_s = node.get_quantity("switch_latency", Dimension::time);
  n.software_latency_s = node.get_quantity("software_latency", Dimension::time);
  return n;
}

double NetworkSpec::payload_bandwidth() const {
  return rate * encoding_efficiency * mtu_bytes / (mtu_bytes + header_bytes);
}

}  // namespace hpcsim

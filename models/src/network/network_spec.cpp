#include "models/network/network_spec.h"

#include <cstdio>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/input_limits.h"

namespace hpcsim {

const Schema& network_spec_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      optional("description", Schema::string(), "free text (not read)", "none"),
      required("rate", Schema::quantity(Dimension::bandwidth).positive(),
               "signalling (line) rate of one port `lanes` wide, per direction, before encoding"),
      optional("lanes", Schema::integer().at_least(1),
               "the width `rate` is quoted for (a node's PCIe link may be narrower or wider)", "1"),
      required("encoding_efficiency", Schema::number().positive().at_most(1.0),
               "data bits per line bit after line coding and FEC (rate x this = the rate as sold)"),
      required("mtu", Schema::quantity(Dimension::bytes).at_least(64),
               "the configured MTU (cluster.mtu overrides it); at most max_mtu"),
      optional("max_mtu", Schema::quantity(Dimension::bytes).at_least(64), "the largest MTU the technology allows",
               "mtu"),
      optional("mtu_header_bytes", Schema::quantity(Dimension::bytes).at_least(0),
               "protocol headers counted inside the MTU (IP + TCP for Ethernet)", "0 B"),
      required("header_bytes", Schema::quantity(Dimension::bytes).at_least(0),
               "per-packet bytes on the wire outside the MTU (framing, link headers, CRCs)"),
      required("switch_latency", Schema::quantity(Dimension::time).at_least(0), "latency of one switch hop"),
      required("software_latency", Schema::quantity(Dimension::time).at_least(0),
               "per-message latency at the end hosts (stack, driver, NIC)"),
      optional("eager_threshold", Schema::quantity(Dimension::bytes).at_least(0),
               "MPI on this network: messages below this size go eager (sent at once, buffered by the "
               "receiver), larger ones rendezvous (one handshake latency first)",
               "64 KiB (Open MPI's TCP BTL eager limit)"),
      optional("mpi_overhead", Schema::quantity(Dimension::time).at_least(0),
               "MPI on this network: the library's CPU time per message at the sender and again at the "
               "receiver (LogGP o), on top of software_latency; only the MPI point-to-point model uses it",
               "0 s"),
      optional("routing", Schema::one_of(kRoutingNames.names()),
               "how switches choose among equally short next hops: ecmp (a hash of each flow, as Ethernet "
               "switches do) or d-mod-k (by the destination alone, as an InfiniBand or Omni-Path subnet "
               "manager's fat-tree routing programs them); cluster.routing overrides it",
               "ecmp"),
  });
  return schema;
}

namespace {

// Why an MTU cannot be used, or empty when it can.
std::string mtu_problem(const NetworkSpec& n, double mtu) {
  if (mtu > n.max_mtu_bytes) {
    return "MTU " + std::to_string(static_cast<long long>(mtu)) + " B exceeds the " +
           std::to_string(static_cast<long long>(n.max_mtu_bytes)) + " B maximum of " + n.name;
  }
  if (mtu <= n.mtu_header_bytes) {
    return "MTU " + std::to_string(static_cast<long long>(mtu)) + " B leaves no room for the " +
           std::to_string(static_cast<long long>(n.mtu_header_bytes)) + " B of headers inside it";
  }
  return {};
}

}  // namespace

NetworkSpec parse_network_spec(const ConfigNode& node, std::string name) {
  network_spec_schema().validate(node);
  NetworkSpec n;
  n.name = std::move(name);
  n.rate = node.get_quantity("rate", Dimension::bandwidth);
  n.lanes = static_cast<int>(node.get_int_or("lanes", 1));
  n.encoding_efficiency = node.get_number("encoding_efficiency");
  n.mtu_bytes = node.get_quantity("mtu", Dimension::bytes);
  n.max_mtu_bytes = node.get_quantity_or("max_mtu", Dimension::bytes, n.mtu_bytes);
  n.mtu_header_bytes = node.get_quantity_or("mtu_header_bytes", Dimension::bytes, 0);
  n.header_bytes = node.get_quantity("header_bytes", Dimension::bytes);
  n.switch_latency_s = node.get_quantity("switch_latency", Dimension::time);
  n.software_latency_s = node.get_quantity("software_latency", Dimension::time);
  n.eager_threshold_bytes = node.get_quantity_or("eager_threshold", Dimension::bytes, NetworkSpec::kDefaultEagerThreshold);
  n.mpi_overhead_s = node.get_quantity_or("mpi_overhead", Dimension::time, 0);
  n.routing = *kRoutingNames.parse(node.get_string_or("routing", "ecmp"));
  if (std::string problem = mtu_problem(n, n.mtu_bytes); !problem.empty()) {
    throw ConfigError(node.at("mtu").loc(), problem);
  }
  // Headers are a packet's overhead; more header than the largest packet is no network (and rates vanish).
  if (n.header_bytes > n.max_mtu_bytes) {
    throw ConfigError(node.at("header_bytes").loc(),
                      "header_bytes is more than the largest packet (max_mtu " +
                          std::to_string(static_cast<long long>(n.max_mtu_bytes)) + " B)");
  }
  // The rate data moves at, as every input rate, at least 1 B/s: an encoding efficiency of 1e-300 passed
  // each key's own range and stalled a training step (its messages' times out of range; a fuzz find).
  if (!(n.payload_bandwidth() >= input_limits::min_positive_rate)) {
    char text[160];
    std::snprintf(text, sizeof text, "the link moves %.3g B/s of data (rate x lanes x encoding_efficiency, less headers): below 1 B/s",
                  n.payload_bandwidth());
    throw ConfigError(node.at("encoding_efficiency").loc(), text);
  }
  return n;
}

double NetworkSpec::payload_bandwidth() const {
  const double payload = mtu_bytes - mtu_header_bytes;
  return data_rate() * payload / (mtu_bytes + header_bytes);
}

NetworkSpec NetworkSpec::with_mtu(double mtu) const {
  if (std::string problem = mtu_problem(*this, mtu); !problem.empty()) throw std::invalid_argument(problem);
  NetworkSpec n = *this;
  n.mtu_bytes = mtu;
  return n;
}

}  // namespace hpcsim

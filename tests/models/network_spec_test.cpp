#include <catch2/catch.hpp>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/network/network_spec.h"

using namespace hpcsim;

namespace {

NetworkSpec shipped(const std::string& name) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  return parse_network_spec(catalog.load("networks", ConfigNode::make_scalar(name, {}), "network"), name);
}

std::string error_of(const std::string& yaml) {
  try {
    parse_network_spec(parse_config_text(yaml, "net.yaml"), "net");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Every link technology the issue names ships and parses", "[network][specs]") {
  for (const char* name : {"ib-edr", "ib-hdr", "ib-ndr", "roce-25g", "roce-100g", "roce-400g", "eth-10g-tcp",
                           "eth-25g-tcp", "eth-100g-tcp", "opa-100", "efa-400g", "nvlink1", "nvlink2", "nvlink3",
                           "nvlink4", "pcie3", "pcie4", "pcie5"}) {
    INFO(name);
    const NetworkSpec n = shipped(name);
    CHECK(n.payload_bandwidth() > 0);
    CHECK(n.payload_bandwidth() < n.data_rate());
    CHECK(n.data_rate() <= n.rate);
  }
}

TEST_CASE("Data rates after line coding are the rates the technologies are sold at", "[network][specs]") {
  // Published data rates (Gb/s): IBTA EDR/HDR/NDR 100/200/400, IEEE 802.3 10/25/100/400 GbE, OPA 100.
  CHECK(shipped("ib-edr").data_rate() * 8 == Approx(100e9).epsilon(1e-4));
  CHECK(shipped("ib-hdr").data_rate() * 8 == Approx(200e9).epsilon(1e-4));
  CHECK(shipped("ib-ndr").data_rate() * 8 == Approx(400e9).epsilon(1e-4));
  CHECK(shipped("eth-10g-tcp").data_rate() * 8 == Approx(10e9).epsilon(1e-4));
  CHECK(shipped("roce-25g").data_rate() * 8 == Approx(25e9).epsilon(1e-4));
  CHECK(shipped("roce-400g").data_rate() * 8 == Approx(400e9).epsilon(1e-4));
  // NVLink 2/3/4: 25 GB/s per link per direction (V100, A100, H100 whitepapers).
  for (const char* nv : {"nvlink2", "nvlink3", "nvlink4"}) CHECK(shipped(nv).data_rate() == Approx(25e9).epsilon(1e-4));
  // PCIe x16: 15.75 / 31.5 / 63 GB/s after 128b/130b.
  CHECK(shipped("pcie4").data_rate() == Approx(31.5e9).epsilon(1e-3));
}

TEST_CASE("Headers per MTU set the payload share, so a larger MTU carries more", "[network][mtu]") {
  const NetworkSpec tcp = shipped("eth-100g-tcp");
  // 9000 B jumbo frame: 8948 B of payload per 9038 B on the wire.
  CHECK(tcp.payload_bandwidth() == Approx(tcp.data_rate() * 8948.0 / 9038.0));
  const NetworkSpec small = tcp.with_mtu(1500);
  CHECK(small.payload_bandwidth() == Approx(tcp.data_rate() * 1448.0 / 1538.0));
  CHECK(small.payload_bandwidth() < tcp.payload_bandwidth());
  CHECK_THROWS_AS(tcp.with_mtu(9001), std::invalid_argument);  // above the maximum
  CHECK_THROWS_AS(tcp.with_mtu(52), std::invalid_argument);    // no room for a payload
  // RDMA over IB has far less software latency per message than kernel TCP.
  CHECK(shipped("ib-hdr").software_latency_s * 5 < tcp.software_latency_s);
}

TEST_CASE("Bad link specs name the offending key", "[network][errors]") {
  const std::string base =
      "rate: 100 Gb/s\nencoding_efficiency: 1\nheader_bytes: 40 B\nswitch_latency: 1 us\nsoftware_latency: 1 us\n";
  CHECK_THAT(error_of(base + "mtu: 9000 B\nmax_mtu: 4096 B\n"), Catch::Contains("net.yaml:6:6:") &&
                                                                   Catch::Contains("exceeds the 4096 B maximum"));
  CHECK_THAT(error_of(base + "mtu: 100 B\nmtu_header_bytes: 100 B\n"), Catch::Contains("no room"));
  CHECK_THAT(error_of(base + "mtu: 4096 B\nlanes: 0\n"), Catch::Contains("net.yaml:7:"));
}

#include <catch2/catch.hpp>

#include "models/collectives/ring_allreduce.h"
#include "models/network/cluster_fabric.h"

using namespace hpcsim;

namespace {

NodeSpec test_node(int gpus, double link_bw, double link_latency, int nics, double nic_bits) {
  NodeSpec n;
  n.name = "test-node";
  n.gpus = gpus;
  n.gpu_link = GpuLinkSpec{"nvswitch", link_bw, link_latency};
  n.nics = NicSpec{nics, nic_bits};
  return n;
}

NetworkSpec test_network() {
  NetworkSpec net;
  net.name = "test-net";
  net.rate = 25e9;
  net.encoding_efficiency = 1;
  net.mtu_bytes = 4096;
  net.header_bytes = 0;
  net.switch_latency_s = 0.5e-6;
  net.software_latency_s = 1.5e-6;
  return net;
}

double run_allreduce(const NodeSpec& node, int nodes, std::optional<NetworkSpec> net, double bytes) {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, node, nodes, node.gpus, std::move(net));
  double finished = -1;
  start_ring_allreduce(sim, fs, fabric, bytes, [&] { finished = sim.now().to_seconds(); });
  sim.run();
  return finished;
}

}  // namespace

TEST_CASE("Uncontended ring all-reduce inside a node follows the alpha-beta formula", "[collectives]") {
  const int n = 8;
  const double bw = 300e9, alpha = 1e-6, bytes = 1 << 30;
  const double expected = 2 * (n - 1) * (alpha + bytes / n / bw);
  CHECK(run_allreduce(test_node(n, bw, alpha, 0, 0), 1, std::nullopt, bytes) ==
        Approx(expected).epsilon(0.01));
}

TEST_CASE("Ring all-reduce across nodes is bound by the NIC rails", "[collectives]") {
  // 2 nodes x 4 GPUs, 4 rails of 25 GB/s: each ring carries bytes/4 and its slowest hop is a NIC.
  const int n = 8, rails = 4;
  const double bytes = 256e6;
  const NetworkSpec net = test_network();
  const double alpha = net.software_latency_s + net.switch_latency_s;
  const double expected = 2 * (n - 1) * (alpha + bytes / n / rails / 25e9);
  CHECK(run_allreduce(test_node(4, 300e9, 1e-6, rails, 200e9), 2, net, bytes) == Approx(expected).epsilon(0.01));
}

TEST_CASE("A single GPU all-reduce completes at once", "[collectives]") {
  CHECK(run_allreduce(test_node(1, 300e9, 1e-6, 0, 0), 1, std::nullopt, 1e9) == 0.0);
}

TEST_CASE("A multi-node fabric without a network is rejected", "[collectives][errors]") {
  Simulator sim;
  FairShare fs(sim);
  CHECK_THROWS_AS(ClusterFabric(fs, test_node(8, 1e9, 0, 8, 1e9), 2, 8, std::nullopt), std::invalid_argument);
  CHECK_THROWS_AS(ClusterFabric(fs, test_node(8, 1e9, 0, 8, 1e9), 1, 9, std::nullopt), std::invalid_argument);
}

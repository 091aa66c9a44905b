#include <catch2/catch.hpp>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/network/cluster_fabric.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

NodeSpec node(const std::string& name) {
  return parse_node_spec(catalog().load("nodes", ConfigNode::make_scalar(name, {}), "node"), name, catalog());
}

NetworkSpec network(const std::string& name) {
  return parse_network_spec(catalog().load("networks", ConfigNode::make_scalar(name, {}), "network"), name);
}

// One GPU and one NIC per node, no PCIe tree: isolates the switch network.
NodeSpec one_nic_node(double nic_bits) {
  NodeSpec n;
  n.name = "one-nic";
  n.gpus = 1;
  n.gpu_link = GpuLinkSpec{"nvswitch", 1e12, 0};
  n.nics = NicSpec{1, nic_bits};
  return n;
}

// Runs messages (from, to, rail, bytes) started together; returns each one's finish time.
std::vector<double> send(const ClusterFabric& fabric, Simulator& sim, FairShare& fs,
                         const std::vector<std::tuple<int, int, int, double>>& messages) {
  std::vector<double> done(messages.size(), -1);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto [from, to, rail, bytes] = messages[i];
    const Hop hop = fabric.route(from, to, rail);
    double* slot = &done[i];
    auto path = std::make_shared<std::vector<ResourceId>>(hop.path);
    sim.schedule_in(Time::seconds(hop.latency_s), [&fs, &sim, slot, path, b = bytes] {
      fs.start_flow(*path, b, [&sim, slot](FlowId) { *slot = sim.now().to_seconds(); });
    });
  }
  sim.run();
  return done;
}

}  // namespace

TEST_CASE("An uncontended message between DGX A100 nodes takes alpha + n/beta", "[fabric]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, node("dgx-a100-80gb"), 2, 8, network("ib-hdr"));
  const double bytes = 256e6;
  // By hand from the specs: HDR carries 200 Gb/s of data, 4096 of every 4122 bytes are payload; the GPU's
  // PCIe Gen4 x16 link (28.8 GB/s) is faster. Latency: 1.2 us verbs + one switch hop of 130 ns.
  const double beta = 200e9 / 8 * 4096.0 / 4122.0;
  const double alpha = 1.2e-6 + 130e-9;
  const Hop hop = fabric.route(0, 8, 0);
  CHECK(hop.inter_node);
  CHECK(hop.bandwidth == Approx(beta));
  CHECK(send(fabric, sim, fs, {{0, 8, 0, bytes}})[0] == Approx(alpha + bytes / beta).epsilon(0.01));
}

TEST_CASE("Two messages through one NIC each get half of it", "[fabric]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, node("dgx-a100-80gb"), 2, 8, network("ib-hdr"));
  const double bytes = 100e6, beta = 200e9 / 8 * 4096.0 / 4122.0, alpha = 1.2e-6 + 130e-9;
  // GPUs 0 and 1 share NIC 0's PCIe switch, so only the NIC port is shared.
  const std::vector<double> t = send(fabric, sim, fs, {{0, 8, 0, bytes}, {1, 9, 0, bytes}});
  CHECK(t[0] == Approx(alpha + 2 * bytes / beta).epsilon(0.01));
  CHECK(t[1] == Approx(t[0]));
}

TEST_CASE("A GPU far from the NIC crosses the PCIe root complex", "[fabric]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, node("dgx-a100-80gb"), 2, 8, network("ib-hdr"));
  CHECK(fabric.gpu_near_nic(5) == 4);
  CHECK(fabric.route(4, 12, 5).path.size() == 4);  // PCIe up, NIC tx, NIC rx, PCIe down
  CHECK(fabric.route(0, 8, 5).path.size() == 8);   // + switch uplinks on both nodes
}

TEST_CASE("Inside a DGX A100, GPUs meet at the NVSwitch", "[fabric]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, node("dgx-a100-80gb"), 1, 8, std::nullopt);
  const Hop hop = fabric.route(0, 7, 0);
  CHECK_FALSE(hop.inter_node);
  CHECK(hop.path.size() == 2);
  CHECK(hop.bandwidth == Approx(240e9).epsilon(1e-6));
}

TEST_CASE("NVLink pairs: direct where linked, through a peer GPU where not", "[fabric]") {
  const ConfigNode spec = parse_config_text(
      "gpu: a100-sxm4-80gb\ngpus: 4\ngpu_interconnect:\n  kind: nvlink\n  link: nvlink3\n"
      "  pairs: [[0, 1, 2], [1, 2, 1], [2, 3, 1]]\n"
      "nics: {count: 1, rate: 100 Gb/s}\n"
      "cpu: {sockets: 1, cores_per_socket: 8, clock: 2 GHz, flops_per_socket: 1 TFLOP/s, "
      "memory_bandwidth_per_socket: 100 GB/s}\nhost_memory: 64 GiB\n",
      "node.yaml");
  const NodeSpec n = parse_node_spec(spec, "mesh", catalog());
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, n, 1, 4, std::nullopt);
  const double link = 25e9 * 128.0 / 160.0;
  CHECK(fabric.route(0, 1, 0).bandwidth == Approx(2 * link));
  CHECK(fabric.route(0, 3, 0).path.size() == 3);
  CHECK(fabric.route(0, 3, 0).bandwidth == Approx(link));
  CHECK(fabric.route(3, 0, 0).latency_s == Approx(3 * n.gpu_link.latency_s));
}

TEST_CASE("PCIe GPUs without peer-to-peer go through the host", "[fabric]") {
  NodeSpec n = one_nic_node(100e9);
  n.gpus = 4;
  n.gpu_link = GpuLinkSpec{"pcie", 0, 0};
  n.pcie.link = network("pcie4");
  n.pcie.switches = 2;
  n.pcie.gpus_per_switch = 2;
  n.pcie.nics_per_switch = 1;
  Simulator sim;
  FairShare fs(sim);
  {
    const ClusterFabric fabric(fs, n, 1, 4, std::nullopt);
    CHECK(fabric.route(0, 1, 0).path.size() == 2);  // peer-to-peer under one switch
    CHECK(fabric.route(0, 2, 0).path.size() == 4);  // across the root complex
    CHECK(fabric.route(0, 1, 0).bandwidth == Approx(31.5077e9 * 256.0 / 280.0).epsilon(1e-4));
  }
  n.pcie.p2p = false;
  const ClusterFabric staged(fs, n, 1, 4, std::nullopt);
  CHECK(staged.route(0, 1, 0).path.size() == 4);
  CHECK(staged.route(0, 1, 0).latency_s > 2 * n.pcie.link->software_latency_s);
}

TEST_CASE("An oversubscribed fat-tree cuts cross-leaf bandwidth by its ratio", "[fabric]") {
  // Radix 8: 1:1 gives leaves 4 endpoints + 4 uplinks, 3:1 gives 6 + 2. Every node on leaf 0 sends to
  // every node on leaf 1 at once; the aggregate rate across the cut is what the uplinks allow.
  auto cross_leaf_rate = [](double ratio, Routing routing = Routing::ecmp) {
    const int down = ratio == 1 ? 4 : 6;
    NetworkSpec net = network("ib-edr");
    net.routing = routing;
    TopologySpec t;
    t.kind = TopologyKind::fat_tree;
    t.radix = 8;
    t.oversubscription = ratio;
    Simulator sim;
    FairShare fs(sim);
    const ClusterFabric fabric(fs, one_nic_node(100e9), 2 * down, 1, net, t);
    std::vector<FlowId> flows;
    for (int a = 0; a < down; ++a) {
      for (int b = down; b < 2 * down; ++b) {
        flows.push_back(fs.start_flow(fabric.route(a, b, 0).path, 1e9, [](FlowId) {}));
      }
    }
    fs.settle();
    double total = 0;
    for (FlowId f : flows) total += fs.rate(f);
    return total / down;  // per sending node
  };
  const double port = network("ib-edr").payload_bandwidth();
  // 3:1: the two uplinks carry everything: exactly a third of each node's port.
  CHECK(cross_leaf_rate(3) == Approx(port / 3));
  // 1:1: as many uplinks as senders; per-flow ECMP hashing lets some uplinks carry more flows than others,
  // so the aggregate falls somewhat short of the ports (a real ECMP effect) but is far above the 3:1 cut.
  CHECK(cross_leaf_rate(1) <= Approx(port));
  CHECK(cross_leaf_rate(1) > 2 * cross_leaf_rate(3));
  // InfiniBand's destination-based routing sends everything bound for one destination up one spine, one
  // destination per spine: the cut carries every port's full rate, and 3:1 is still a third.
  CHECK(cross_leaf_rate(1, Routing::d_mod_k) == Approx(port));
  CHECK(cross_leaf_rate(1, Routing::d_mod_k) > cross_leaf_rate(1));
  CHECK(cross_leaf_rate(3, Routing::d_mod_k) == Approx(port / 3));
  // A lone cross-leaf message is not slowed at all on 1:1.
  TopologySpec t;
  t.kind = TopologyKind::fat_tree;
  t.radix = 8;
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, one_nic_node(100e9), 8, 1, network("ib-edr"), t);
  CHECK(fabric.route(0, 7, 0).path.size() == 4);
  CHECK(fabric.route(0, 7, 0).bandwidth == Approx(port));
}

TEST_CASE("Topology errors surface when the fabric is built", "[fabric][errors]") {
  TopologySpec t;
  t.kind = TopologyKind::fat_tree;
  t.radix = 4;
  Simulator sim;
  FairShare fs(sim);
  CHECK_THROWS_WITH(ClusterFabric(fs, one_nic_node(100e9), 9, 1, network("ib-edr"), t),
                    Catch::Contains("holds at most 4 leaves"));
}

TEST_CASE("Switch links become resources when a route first crosses them", "[fabric]") {
  // Radix 8, 1:1: 2 leaves of 4 nodes, 4 spines, 8 links. Nodes on one leaf need no switch link.
  TopologySpec t;
  t.kind = TopologyKind::fat_tree;
  t.radix = 8;
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, one_nic_node(100e9), 8, 1, network("ib-edr"), t);
  const std::size_t ports = fs.resource_count();
  CHECK(ports == 8 * 2 + 8 * 2);  // per node: GPU port in/out and NIC tx/rx
  CHECK(fabric.route(0, 1, 0).path.size() == 2);
  CHECK(fs.resource_count() == ports);
  const Hop& across = fabric.route(0, 7, 0);
  CHECK(across.path.size() == 4);
  CHECK(fs.resource_count() == ports + 2);  // leaf 0 up to a spine, that spine down to leaf 1
  CHECK(fs.name(across.path[1]).find("switch") == 0);
  CHECK(fs.stats(across.path[1]).capacity == Approx(network("ib-edr").payload_bandwidth()));
  (void)fabric.route(0, 7, 0);
  CHECK(fs.resource_count() == ports + 2);
}

TEST_CASE("route_once gives the route without keeping it", "[fabric]") {
  TopologySpec t;
  t.kind = TopologyKind::fat_tree;
  t.radix = 8;
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, one_nic_node(100e9), 8, 1, network("ib-edr"), t);
  Hop scratch;
  const Hop& once = fabric.route_once(0, 7, 0, scratch);
  CHECK(&once == &scratch);  // not cached yet: computed into the scratch
  const Hop kept = once;
  const Hop& cached = fabric.route(0, 7, 0);
  CHECK(cached.path == kept.path);
  CHECK(cached.latency_s == kept.latency_s);
  CHECK(cached.bandwidth == kept.bandwidth);
  CHECK(&fabric.route_once(0, 7, 0, scratch) == &cached);  // cached now: no copy
  CHECK_THROWS_AS(fabric.route_once(0, 0, 0, scratch), std::invalid_argument);
}

// A collective group's channels leave a node through the NICs beside its own GPUs (NCCL's local network
// device per channel), not through every NIC of the node: a group holding a few GPUs of a big NVLink
// domain gets their NICs' bandwidth, and two groups on one node share no NIC.
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_runner.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"
#include "collective_test_support.h"

using namespace hpcsim;

namespace {

NodeSpec node_with(int gpus, int nics) { return test::node_of(gpus, 900e9, 1e-6, nics, 400e9); }

NetworkSpec network() { return test::net_of(50e9, 1e-6); }

double allreduce_seconds(const ClusterFabric& fabric, Simulator& sim, FairShare& fs, const std::vector<int>& gpus,
                         double bytes) {
  CollectiveRequest request;
  request.op = CollectiveOp::allreduce;
  request.bytes = bytes;
  request.algorithm = CollectiveAlgorithm::ring;
  const Time start = sim.now();
  Time end = start;
  start_collective(sim, fs, fabric, CollectiveGroup::of(fabric, gpus), request,
                   [&](const CollectiveStats& s) { end = s.end; });
  sim.run();
  return (end - start).to_seconds();
}

}  // namespace

TEST_CASE("A group's rails are the NICs beside its GPUs", "[collectives]") {
  Simulator sim;
  FairShare fs(sim);
  SECTION("one NIC per GPU") {
    const ClusterFabric fabric(fs, node_with(8, 8), 2, 8, std::optional(network()));
    CHECK(fabric.nics_near_gpu(3) == std::vector<int>{3});
    const CollectiveGroup one = CollectiveGroup::of(fabric, {3, 11});  // GPU 3 of each node
    CHECK(one.rails() == 1);
    CHECK(one.nic(0) == 3);
    CHECK(one.home_rail(0) == 0);
    const CollectiveGroup two = CollectiveGroup::of(fabric, {2, 6, 10, 14});
    CHECK(two.rails() == 2);
    CHECK(two.nic(0) == 2);
    CHECK(two.nic(1) == 6);
    CHECK(two.home_rail(1) == 1);
    std::vector<int> all(16);
    for (int g = 0; g < 16; ++g) all[static_cast<std::size_t>(g)] = g;
    CHECK(CollectiveGroup::of(fabric, all).rails() == 8);
    CHECK(CollectiveGroup::of(fabric, {0, 1, 2}).rails() == 1);  // one node: no NIC
  }
  SECTION("GPUs sharing a NIC, a GPU with two") {
    const ClusterFabric shared(fs, node_with(8, 4), 2, 8, std::optional(network()));
    CHECK(shared.nics_near_gpu(5) == std::vector<int>{2});
    CHECK(CollectiveGroup::of(shared, {4, 5, 12, 13}).rails() == 1);
    const ClusterFabric doubled(fs, node_with(4, 8), 2, 4, std::optional(network()));
    CHECK(doubled.nics_near_gpu(1) == std::vector<int>{2, 3});
  }
}

TEST_CASE("Two GPUs of a node all-reduce over their two NICs, however many the node has", "[collectives]") {
  // 2 nodes, 2 of their GPUs in the group: each channel's inter-node hop runs at one NIC's 50 GB/s, and
  // the node's other NICs add nothing. A ring of 4 ranks moves 2 (n-1)/n of the buffer per rank.
  const double bytes = 4e9;
  double seconds[2];
  int k = 0;
  for (const int nics : {8, 64}) {
    Simulator sim;
    FairShare fs(sim);
    const ClusterFabric fabric(fs, node_with(nics, nics), 2, nics, std::optional(network()));
    seconds[k++] = allreduce_seconds(fabric, sim, fs, {0, 1, nics, nics + 1}, bytes);
  }
  CHECK(seconds[1] == Approx(seconds[0]).epsilon(1e-9));
  // Two channels of bytes/2 each, 2 (n-1) = 6 steps of a quarter of that: 6 * 0.5e9 / 50e9 s at least.
  CHECK(seconds[0] >= 6 * (bytes / 2 / 4) / 50e9);
  CHECK(seconds[0] < 1.2 * 6 * (bytes / 2 / 4) / 50e9 + 1e-3);
}

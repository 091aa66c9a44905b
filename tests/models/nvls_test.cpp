// NVLink SHARP (the nvls all-reduce): on one node's NVSwitch of Hopper or Blackwell GPUs each GPU's ports
// carry its buffer once each way, at NCCL's NVLS efficiency, after NVLS's fixed latency; elsewhere it is
// refused, and the selector takes it where its time is the lowest.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "models/collectives/algorithm_selector.h"
#include "models/collectives/collective_runner.h"
#include "models/collectives/nvls.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"
#include "collective_test_support.h"

using namespace hpcsim;

namespace {

NodeSpec node_with(const std::string& compute_capability) {
  NodeSpec n = test::node_of(8, 450e9, 1e-6, 8, 400e9);
  n.gpu.compute_capability = compute_capability;
  return n;
}

double allreduce_seconds(const ClusterFabric& fabric, Simulator& sim, FairShare& fs, CollectiveAlgorithm algo,
                         double bytes) {
  CollectiveRequest request;
  request.op = CollectiveOp::allreduce;
  request.bytes = bytes;
  request.algorithm = algo;
  const Time start = sim.now();
  Time end = start;
  start_collective(sim, fs, fabric, CollectiveGroup::whole(fabric), request,
                   [&](const CollectiveStats& s) { end = s.end; });
  sim.run();
  return (end - start).to_seconds();
}

}  // namespace

TEST_CASE("NCCL's NVLS efficiency by GPU generation", "[collectives][nvls]") {
  CHECK(nvls_efficiency("9.0") == 0.85);
  CHECK(nvls_efficiency("10.0") == 0.74);
  CHECK(nvls_efficiency("10.3") == 0.74);
  CHECK(nvls_efficiency("8.0") == 0);
  CHECK(nvls_efficiency("") == 0);
}

TEST_CASE("an NVLS all-reduce moves each byte once each way at NCCL's NVLS rate", "[collectives][nvls]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, node_with("9.0"), 1, 8, std::nullopt);
  const double bytes = 16.0 * (1ull << 30);
  const double nvls = allreduce_seconds(fabric, sim, fs, CollectiveAlgorithm::nvls, bytes);
  const double ring = allreduce_seconds(fabric, sim, fs, CollectiveAlgorithm::ring, bytes);
  // A ring moves 2(n-1)/n buffers over each port at its full rate; NVLS one buffer at 0.85 x 15/16 of it.
  const double expected_ratio = (2.0 * 7 / 8) * 0.85 * 15 / 16;
  CHECK(ring / nvls == Approx(expected_ratio).epsilon(0.01));
  // The fixed latency: a tiny all-reduce takes at least NVLS's 23 us.
  CHECK(allreduce_seconds(fabric, sim, fs, CollectiveAlgorithm::nvls, 1024) >= kNvlsLatencyS);
}

TEST_CASE("NVLS needs one node's NVSwitch of Hopper or later GPUs", "[collectives][nvls]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric ampere(fs, node_with("8.0"), 1, 8, std::nullopt);
  CHECK_FALSE(unsupported_reason(CollectiveOp::allreduce, CollectiveAlgorithm::nvls, CollectiveGroup::whole(ampere)).empty());
  const ClusterFabric hopper(fs, node_with("9.0"), 2, 8, std::optional(test::net_of(50e9, 1e-6)));
  CHECK(unsupported_reason(CollectiveOp::allreduce, CollectiveAlgorithm::nvls, CollectiveGroup::first(hopper, 8)).empty());
  CHECK_FALSE(unsupported_reason(CollectiveOp::allreduce, CollectiveAlgorithm::nvls, CollectiveGroup::whole(hopper)).empty());
  CHECK_FALSE(unsupported_reason(CollectiveOp::allgather, CollectiveAlgorithm::nvls, CollectiveGroup::first(hopper, 8)).empty());
  NodeSpec pcie = node_with("9.0");
  pcie.gpu_link.kind = "pcie";
  const ClusterFabric no_switch(fs, pcie, 1, 8, std::nullopt);
  CHECK_FALSE(unsupported_reason(CollectiveOp::allreduce, CollectiveAlgorithm::nvls, CollectiveGroup::whole(no_switch)).empty());
}

TEST_CASE("the selector takes NVLS for large all-reduces on Hopper, not for small ones", "[collectives][nvls]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, node_with("9.0"), 1, 8, std::nullopt);
  const CollectiveGroup group = CollectiveGroup::whole(fabric);
  CHECK(select_algorithm(CollectiveOp::allreduce, 1e9, fabric, fs, group) == CollectiveAlgorithm::nvls);
  CHECK(select_algorithm(CollectiveOp::allreduce, 64 * 1024, fabric, fs, group) != CollectiveAlgorithm::nvls);
  const ClusterFabric ampere(fs, node_with("8.0"), 1, 8, std::nullopt);
  CHECK(select_algorithm(CollectiveOp::allreduce, 1e9, ampere, fs, CollectiveGroup::whole(ampere)) !=
        CollectiveAlgorithm::nvls);
}

// start_collectives: concurrent groups that the fabric maps onto each other run as one representative per
// class, with the same timing as running every group; groups the check cannot match run in full.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/collectives/collective_runner.h"
#include "models/platform/platform.h"

using namespace hpcsim;

namespace {

ClusterConfig cluster(const std::string& text) {
  return parse_cluster(parse_config_text(text, "cluster.yaml").at("cluster"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
}

struct Outcome {
  Time end;
  std::uint64_t refilled = 0;
};

// Every local GPU index's group over `nodes` nodes (a stage's data-parallel groups, one per tp rank).
Outcome run(const ClusterConfig& c, int nodes, CollectiveOp op, bool by_symmetry) {
  Platform platform(c);
  std::vector<CollectiveGroup> groups;
  const int per_node = c.gpus_per_node;
  for (int r = 0; r < per_node; ++r) {
    std::vector<int> gpus;
    for (int n = 0; n < nodes; ++n) gpus.push_back(n * per_node + r);
    groups.push_back(CollectiveGroup::of(platform.fabric(), gpus));
  }
  CollectiveRequest request;
  request.op = op;
  request.bytes = 256e6;
  Outcome out;
  int done = 0;
  start_collectives(platform.sim(), platform.fair_share(), platform.fabric(), groups, request, by_symmetry,
                    [&](const CollectiveStats&) {
                      ++done;
                      out.end = platform.sim().now();
                    });
  platform.sim().run();
  REQUIRE(done == 1);
  out.refilled = platform.fair_share().refilled_flows();
  return out;
}

}  // namespace

TEST_CASE("Symmetric data-parallel groups run as classes with the full simulation's timing", "[collectives][symmetry]") {
  const ClusterConfig leaf = cluster(
      "cluster: {node: dgx-h100, nodes: 16, network: ib-ndr, topology: {kind: rail-optimized, levels: 2, radix: 64}}\n");
  for (const CollectiveOp op : {CollectiveOp::reducescatter, CollectiveOp::allgather, CollectiveOp::allreduce}) {
    const Outcome classes = run(leaf, 16, op, true), full = run(leaf, 16, op, false);
    CHECK(classes.end == full.end);
    CHECK(classes.refilled * 2 <= full.refilled);  // two classes of four on DGX H100: a quarter of the flows
  }
}

TEST_CASE("Groups whose routes the check cannot match run in full", "[collectives][symmetry]") {
  // Under ECMP, rings across leaves take spines chosen by hashing each GPU pair: no rail rotation maps one
  // group's routes onto another's, so there are no classes and both runs are the same.
  const ClusterConfig spread = cluster(
      "cluster: {node: dgx-h100, nodes: 64, network: ib-ndr, routing: ecmp, "
      "topology: {kind: rail-optimized, levels: 3, radix: 16}}\n");
  const Outcome classes = run(spread, 64, CollectiveOp::reducescatter, true);
  const Outcome full = run(spread, 64, CollectiveOp::reducescatter, false);
  CHECK(classes.end == full.end);
  CHECK(classes.refilled == full.refilled);
}

TEST_CASE("Under D-mod-K, rings across leaves and pods still form classes", "[collectives][symmetry][dmodk]") {
  // The same fabric routed as InfiniBand routes it (ib-ndr's own d-mod-k): spines follow the destination,
  // a rail rotation maps one group's routes onto another's, and the classes give the full timing.
  const ClusterConfig spread = cluster(
      "cluster: {node: dgx-h100, nodes: 64, network: ib-ndr, topology: {kind: rail-optimized, levels: 3, radix: 16}}\n");
  const Outcome classes = run(spread, 64, CollectiveOp::reducescatter, true);
  const Outcome full = run(spread, 64, CollectiveOp::reducescatter, false);
  CHECK(classes.end == full.end);
  CHECK(classes.refilled * 2 <= full.refilled);
}

// AlgorithmChoices: a remembered pick is select_algorithm's pick for the same arguments, and a pick for one
// size, group or option set is never handed to another.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "models/collectives/algorithm_choices.h"
#include "collective_test_support.h"

using namespace hpcsim;

namespace {

NodeSpec test_node() { return test::node_of(8, 240e9, 1e-6, 8, 200e9); }

NetworkSpec test_net() { return test::net_of(24e9, 3e-6); }

}  // namespace

TEST_CASE("Remembered algorithm picks are the selector's, per size, group and options", "[collectives]") {
  Simulator sim;
  FairShare fs(sim);
  const ClusterFabric fabric(fs, test_node(), 16, 8, test_net());
  std::vector<int> strided_gpus;
  for (int n = 0; n < 16; ++n) strided_gpus.push_back(8 * n + 3);
  const CollectiveGroup strided = CollectiveGroup::of(fabric, strided_gpus);
  const CollectiveGroup whole = CollectiveGroup::whole(fabric);
  ScheduleOptions small_chunks;
  small_chunks.chunk_bytes = 4096;
  AlgorithmChoices choices;
  bool picks_differ = false;  // the sizes below get different picks, so a wrongly shared pick shows
  for (int pass = 0; pass < 2; ++pass) {  // the second pass reads the remembered picks
    for (const CollectiveGroup* group : {&whole, &strided}) {
      for (const CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::alltoall}) {
        for (const double bytes : {8.0, 65536.0, 4e9}) {
          for (const ScheduleOptions& options : {ScheduleOptions{}, small_chunks}) {
            const CollectiveAlgorithm fresh = select_algorithm(op, bytes, fabric, fs, *group, options);
            CHECK(choices.select(op, bytes, fabric, fs, *group, options) == fresh);
            picks_differ = picks_differ || fresh != select_algorithm(op, 8.0, fabric, fs, *group, options);
          }
        }
      }
    }
  }
  CHECK(picks_differ);
  Simulator other_sim;
  FairShare other_fs(other_sim);
  const ClusterFabric other(other_fs, test_node(), 16, 8, test_net());
  CHECK_THROWS_AS(choices.select(CollectiveOp::allreduce, 8, other, other_fs, CollectiveGroup::whole(other), {}),
                  std::invalid_argument);
}

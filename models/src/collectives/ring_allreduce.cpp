#include "models/collectives/ring_allreduce.h"

#include "models/collectives/collective_runner.h"

namespace hpcsim {

void start_ring_allreduce(Simulator& sim, FairShare& fs, const ClusterFabric& fabric, double bytes,
                          std::function<void()> done) {
  CollectiveRequest request;
  request.op = CollectiveOp::allreduce;
  request.algorithm = CollectiveAlgorithm::ring;
  request.bytes = bytes;
  start_collective(sim, fs, fabric, CollectiveGroup::whole(fabric), request,
                   [done = std::move(done)](const CollectiveStats&) { done(); });
}

}  // namespace hpcsim

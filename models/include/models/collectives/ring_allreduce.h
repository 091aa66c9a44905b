#pragma once
// Ring all-reduce over every GPU of a fabric: reduce-scatter then all-gather, 2(n-1) steps. Each step
// every rank sends 1/n of the buffer to its ring successor; the buffer is split over one ring per NIC
// rail, as NCCL does, so cross-node hops use every NIC. Messages are fair-share flows, so concurrent
// collectives and other traffic slow each other down.
#include <functional>

#include "models/network/cluster_fabric.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

namespace hpcsim {

// Starts the all-reduce of `bytes` now; `done` runs (from a simulator event) when every rank has the
// result. A single GPU finishes at once.
void start_ring_allreduce(Simulator& sim, FairShare& fair_share, const ClusterFabric& fabric, double bytes,
                          std::function<void()> done);

}  // namespace hpcsim

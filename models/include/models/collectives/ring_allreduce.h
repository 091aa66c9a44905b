#pragma once
// The ring all-reduce over every GPU of a fabric, as the data-parallel training step uses it: one ring
// per NIC rail, 2(n-1) steps (see collective_runner.h for how steps become flows).
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

#pragma once
// Runs a collective on the fabric: each step's transfers become fair-share flows after their route's
// latency, and the next step starts when the slowest has arrived, so concurrent traffic (other jobs,
// other collectives) slows the collective down and is slowed by it.
//
// Speed by symmetry: steps that repeat a pattern (a ring's 2(n-1) identical steps, a pipeline's steady
// state) are simulated once with all their flows; later steps of the same pattern replay the measured
// duration while the solver carries no other flow, or, given a LinkLedger, while no other collective on
// the ledger has met the links this one can touch (and, among several groups started together, no other
// group of the call crosses them). A step measured or started otherwise is always simulated in full.
// Given a LockstepMemo as well, an identical later call replays the durations an earlier one measured
// (lockstep_memo.h), from its first step on.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "models/collectives/algorithm_choices.h"
#include "models/collectives/collective_algorithms.h"
#include "models/collectives/collective_group.h"
#include "models/collectives/link_ledger.h"
#include "models/collectives/lockstep_memo.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

namespace hpcsim {

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::allreduce;
  std::optional<CollectiveAlgorithm> algorithm;  // unset: select_algorithm picks
  double bytes = 0;
  ScheduleOptions schedule;
  // Replay repeated steps (see above). Turn off when other traffic may start in the middle of a step:
  // a replayed step has no flows for that traffic to share with.
  bool replay_repeated_steps = true;
  // Set where every flow on the links comes from collectives carrying this ledger (a single-tenant
  // platform): steps then also replay while the ledger shows their links are this collective's alone.
  LinkLedger* ledger = nullptr;
  // Set: an unset algorithm is picked through these remembered picks (same pick, made once per size).
  AlgorithmChoices* choices = nullptr;
  // Set with a ledger: lockstep durations are kept here for identical later calls, which replay them.
  LockstepMemo* lockstep = nullptr;
};

struct CollectiveStats {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Time start;
  Time end;
  int steps = 0;
  int steps_replayed = 0;
  std::uint64_t flows_simulated = 0;    // flows put on the solver
  std::uint64_t flows_represented = 0;  // flows the collective stands for, replayed steps included
};

using CollectiveDone = std::function<void(const CollectiveStats&)>;

// Starts the collective now over `group`; `done` runs when the last rank has its result. The fabric
// must outlive the run. std::invalid_argument for a forced algorithm that cannot run the op over the
// group (with the reason), a negative size or a bad root.
CollectiveAlgorithm start_collective(Simulator& sim, FairShare& fair_share, const ClusterFabric& fabric,
                                     const CollectiveGroup& group, const CollectiveRequest& request,
                                     CollectiveDone done);

// Starts the same collective over several groups at once (a pipeline stage's data-parallel groups, one
// per tensor-parallel rank); `done` runs once, when the last group has finished. With `by_symmetry`,
// groups that the fabric's symmetry maps onto group 0 (GPUs permuted inside nodes, rails with them: found
// by matching routes and checked link by link) run as group 0 alone, each of its flows a FairShare flow
// class that carries its images' load: the same max-min rates as running them all. When the check fails
// (heterogeneous placement, failed or uneven links, oversubscription that differs by group), and without
// `by_symmetry`, every group runs in full. std::invalid_argument for no groups, else as start_collective.
CollectiveAlgorithm start_collectives(Simulator& sim, FairShare& fair_share, const ClusterFabric& fabric,
                                      const std::vector<CollectiveGroup>& groups, const CollectiveRequest& request,
                                      bool by_symmetry, CollectiveDone done);

}  // namespace hpcsim

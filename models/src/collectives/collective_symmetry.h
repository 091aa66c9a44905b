#pragma once
// Symmetry classes of concurrent collectives (private to the collectives runner).
//
// Several groups that run the same collective at once (a pipeline stage's data-parallel groups, one per
// tensor-parallel rank) are often images of each other under a symmetry of the fabric: permute the GPUs
// inside every node and the NIC rails with them, and group r's routes become group 0's. Max-min fairness
// then gives corresponding flows equal rates, so one representative per class of groups can be simulated
// on the quotient: each of its flows crosses one representative link per orbit of links, loading it with
// as many of its class's flows as cross each link of that orbit in the full system (FairShare flow
// classes). Orbits are joined over every class, so classes that meet on a link see each other's load.
//
// The correspondence is found by matching routes (a rail map per group, grown greedily, with a link map
// that must stay one-to-one and preserve capacities and latencies), and then checked link by link: for
// every transfer and every orbit it touches, every link of the orbit must carry the same number of
// corresponding flows. Then every link's constraint in the full system is its orbit's constraint in the
// quotient (for each class, and so for their sum), each flow's bottleneck is its representative's, and
// the quotient's max-min rates are the full system's exactly. When any check fails there is no quotient and the caller simulates every group.
#include <optional>
#include <vector>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_schedule.h"
#include "models/network/cluster_fabric.h"
#include "sim-core/fair_share.h"

namespace hpcsim::collective_detail {

// Group 0's transfer on the quotient: one representative resource per orbit and its weight there.
struct QuotientFlow {
  std::vector<ResourceId> path;
  std::vector<double> weights;
};

// Per pattern of the schedules, per transfer of the representative's pattern (in its generated order).
using Quotient = std::vector<std::vector<QuotientFlow>>;

// One class of equivalent groups: its representative (an index into the groups) and its quotient.
struct SymmetryClass {
  std::size_t representative = 0;
  int members = 1;
  std::vector<std::size_t> groups;  // every member (an index into the groups), the representative first
  Quotient quotient;
};

// The classes of running `schedules[g]` over `groups[g]` at once (every group in exactly one class; a
// fabric's routing can split groups into several classes, e.g. GPUs that relay PXN traffic and GPUs that
// do not), or nothing when no two groups are provably equivalent (different sizes or patterns, no
// consistent route correspondence, uneven orbits) or the schedules are too large to compare.
// Routes are looked up with route_once: members' routes are not kept in the fabric's cache (at 131,072
// GPUs that cache held a million routes that only this comparison read). When classes are found and
// `links` is set, every link of every group's routes is appended to it (for a LinkLedger claim).
std::optional<std::vector<SymmetryClass>> symmetry_classes(const FairShare& fair_share, const ClusterFabric& fabric,
                                                           const std::vector<CollectiveGroup>& groups,
                                                           const std::vector<CollectiveSchedule>& schedules,
                                                           std::vector<ResourceId>* links = nullptr);

}  // namespace hpcsim::collective_detail

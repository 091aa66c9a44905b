#pragma once
// Private: one builder per algorithm family, called by build_schedule once it has checked the request.
#include <functional>
#include <vector>

#include "models/collectives/collective_algorithms.h"

namespace hpcsim::schedules {

// Ring order of channel c: the group's nodes in order, each node's ranks in the channel's order
// (CollectiveGroup::ring_locals).
std::vector<int> ring_order(const CollectiveGroup& group, int channel);

// `steps` ring steps on every channel; each rank sends `bytes_per_rank` (split over the channels) to its
// successor per step.
CollectiveSchedule ring(const CollectiveGroup& group, int steps, double bytes_per_rank);
// All-to-all as n-1 shifted exchanges: at step k rank r sends `bytes` to rank r+k.
CollectiveSchedule pairwise(const CollectiveGroup& group, double bytes);

// Pipeline of `positions` hops and `chunks` chunks: at stage s, chunk s-p crosses position p.
// `at_position(p, out)` appends the transfers of one chunk at position p.
CollectiveSchedule pipelined(int positions, int chunks, std::function<void(int, std::vector<Transfer>&)> at_position,
                             std::uint64_t transfers_per_stage);
int chunk_count(double bytes, const ScheduleOptions& options);

// A chain from the root along ring order, one chain per channel; toward the root when `reduce`.
CollectiveSchedule chain(const CollectiveGroup& group, double bytes, const ScheduleOptions& options, bool reduce);
// Double binary tree rooted at the root, half the data on each tree, chunks pipelined.
enum class TreePass { up, down, up_then_down };
CollectiveSchedule double_tree(const CollectiveGroup& group, double bytes, const ScheduleOptions& options,
                               TreePass pass);

enum class HalvingDoubling { reduce_scatter, all_gather, all_reduce };
CollectiveSchedule halving_doubling(const CollectiveGroup& group, double bytes, HalvingDoubling what);

// Direct schedules post every message of a step at once, `bytes` each.
// `steps` steps of r -> q for every pair q != r (an all-reduce is a reduce-scatter then an all-gather).
CollectiveSchedule direct_all_pairs(const CollectiveGroup& group, double bytes, int steps);
CollectiveSchedule direct_from_root(const CollectiveGroup& group, double bytes, int root, bool toward_root);
CollectiveSchedule direct_shift(const CollectiveGroup& group, double bytes);        // r -> r+1

CollectiveSchedule hierarchical_allreduce(const CollectiveGroup& group, double bytes);
// NVLink SHARP all-reduce: each GPU sends its buffer into the switch and takes the result back (one pass
// each way through its own ports, at the group's NVLS efficiency), after NVLS's fixed latency.
CollectiveSchedule nvls_allreduce(const CollectiveGroup& group, double bytes);

// The NIC rail each rank's messages use when they are not on a ring channel: its GPU's own rail, as
// GPU-NIC affinity on rail-optimized nodes gives (GPU i next to NIC i).
std::vector<int> own_rails(const CollectiveGroup& group);

}  // namespace hpcsim::schedules

#pragma once
// The lockstep step durations a collective call measured, kept for the next identical call.
//
// A training step issues dozens of gradient buckets of a few sizes, each an all-reduce over the same
// data-parallel groups. Within one call the runner already replays a repeated pattern from the duration it
// measured (collective_cohort.h); a halving-doubling all-reduce, though, has no repeated pattern, so every
// bucket used to simulate each of its 2 log2(n) patterns with n flows in full. An identical later call (same
// op, algorithm, size, options and groups, on the same fabric) moves the same flows over the same links, and
// when its steps begin in lockstep on links no other collective holds, each step starts from the same state
// as the measured one (no flows on its links; the solver's answer for them depends on nothing else), so its
// duration is the measured one to the picosecond. The cohort then replays it, its first step included.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/collectives/collective_algorithms.h"
#include "models/collectives/collective_group.h"
#include "models/network/cluster_fabric.h"

namespace hpcsim {

class LockstepMemo {
 public:
  // What routing one pattern of one group gave (filled by the runner, collective_runner.cpp, where it routes
  // the call's transfers for its claim): the transfers ordered by latency, each transfer's route bandwidth,
  // and whether every link carries at most one of them. Calls whose schedules move the same transfers read it
  // instead of routing again; they route only the transfers they launch.
  struct RoutedPattern {
    bool known = false;                      // the fields below are filled
    std::vector<std::uint32_t> order;        // transfers by latency, transfer order among equals
    std::vector<std::int64_t> latencies;     // the distinct latencies (ps), ascending
    std::vector<std::uint32_t> group_begin;  // per distinct latency: its first position in `order`
    std::vector<double> bandwidth;           // per transfer: its route's bandwidth
    bool independent = false;                // no link carries two of the pattern's transfers
  };
  // Per group and pattern (index group * patterns + pattern).
  using Routes = std::vector<RoutedPattern>;

  // What calls with the same arguments share.
  struct Record {
    // Per pattern: its lockstep duration in ps (-1 not known yet, -2 the runs drift apart: never replayed).
    std::vector<std::int64_t> durations;
    // Every link the call's routes cross (its ledger claim), each once; null until known.
    std::shared_ptr<const std::vector<ResourceId>> links;
    // The routes of the call's transfers, set with `links`.
    std::shared_ptr<Routes> routes;
  };

  // Every transfer of every pattern of each group's schedule, as (src, dst, rail), {-2, -2, -2} closing each
  // pattern and {-1, -1, -1} each group: two calls over the same groups with equal lists route the same
  // transfers in the same patterns, so claim the same links.
  using Transfers = std::vector<std::array<int, 3>>;
  // Gives `record` the links and routes kept for calls over `groups` that move `transfers`; false if none yet.
  bool share(Record& record, const std::vector<CollectiveGroup>& groups, const Transfers& transfers) const;
  // Keeps `links` and `routes` for such calls, and gives them to `record`.
  void keep(Record& record, const std::vector<CollectiveGroup>& groups, Transfers transfers,
            std::vector<ResourceId> links, Routes routes);

  // The record of calls with these arguments (`symmetric`: the call ran symmetry classes; `groups`: all of
  // its groups, in order), created with `patterns` durations all -1 on first use. std::invalid_argument for
  // another fabric than the first call's.
  std::shared_ptr<Record> record(const ClusterFabric& fabric, CollectiveOp op, CollectiveAlgorithm algorithm,
                                 double bytes, const ScheduleOptions& options, bool symmetric,
                                 const std::vector<CollectiveGroup>& groups, int patterns);

 private:
  struct Entry {
    CollectiveOp op;
    CollectiveAlgorithm algorithm;
    double bytes;
    ScheduleOptions options;
    bool symmetric;
    std::vector<std::vector<int>> gpus;  // per group, rank order
    std::shared_ptr<Record> record;
  };
  struct LinkSet {
    std::vector<std::vector<int>> gpus;
    Transfers transfers;
    std::shared_ptr<const std::vector<ResourceId>> links;
    std::shared_ptr<Routes> routes;
  };
  const ClusterFabric* fabric_ = nullptr;
  std::vector<Entry> entries_;  // a step makes a handful
  std::vector<LinkSet> link_sets_;  // sizes of one algorithm share one (halving-doubling's patterns do)
};

}  // namespace hpcsim

#pragma once
// Internal state of FairShare: flat arrays of resources and flow slots, indexed by integers, so a
// re-solve walks vectors and never a map.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fair_share_due_heap.h"
#include "sim-core/fair_share.h"

namespace hpcsim {

struct FairShare::Impl {
  static constexpr std::uint32_t kNoGroup = UINT32_MAX;
  // A flow whose remaining amount is below this fraction of its size is complete (floating-point residue).
  static constexpr double kDoneFraction = 1e-9;
  // Durations within this relative distance above a whole picosecond round down to it, so exact hand
  // results (3 s, not 3 s + 1 ps) survive the division; anything larger rounds up, never finishing early.
  static constexpr double kSnapFraction = 1e-14;
  struct Link {
    // Fields a re-solve reads first, together at the front of the record.
    double capacity = 0;
    std::uint32_t stamp = 0;  // re-solve scratch below is valid while this equals the solve epoch
    double residual = 0;      // capacity left for the flows being re-solved
    std::uint32_t unfrozen = 0;      // flows not yet frozen
    double unfrozen_weight = 0;      // their weights summed (= unfrozen without flow classes)
    std::vector<std::uint32_t> flows;  // slots of the flows crossing it (order: arrival, swap-removal)
    std::vector<double> weights;       // weights[i]: the load flows[i] puts on it per unit of its rate
    double load = 0;                   // sum of the rates of those flows
    double carried = 0;                // units carried up to `accounted_at`
    Time accounted_at;
    Time busy_total;
    Time busy_since;
    // Equal-share group (fair_share_group.cpp) this link belongs to, its members' weights on it summed and
    // their count; kNoGroup when no group owns it.
    std::uint32_t group = kNoGroup;
    std::uint32_t group_members = 0;
    double group_weight = 0;
    std::uint32_t listed_by = kNoGroup;  // the group whose `owned` list holds it (owned or since released)
    bool finite() const { return capacity != std::numeric_limits<double>::infinity(); }
  };

  // Paths up to this many resources live inside the hot record; longer ones in Flow::long_path.
  static constexpr std::size_t kInlinePath = 6;

  // What the re-solve reads for every flow it meets, one cache line per flow and packed apart from the
  // rest, so that walking a link's flow list and then the flow's path costs one line, not a pointer chase.
  struct alignas(64) FlowHot {
    double rate = 0;
    double new_rate = 0;  // re-solve scratch
    double cap = kNoCap;
    // The load the flow puts on each resource of its path per unit of its rate when that is one number
    // (1 for a plain flow, w for a class with w everywhere); kMixedWeights: per resource, in Flow::weights.
    // Kept here so that the re-solve never leaves this cache line for a weight.
    double weight = 1.0;
    std::uint32_t stamp = 0;  // re-solve epoch that last visited the flow
    std::uint16_t path_len = 0;
    bool solved = false;  // has a rate from a solve (false right after start_flow)
    bool frozen = false;  // re-solve scratch
    ResourceId inline_path[kInlinePath] = {};
  };
  static constexpr double kMixedWeights = -1.0;
  static constexpr std::size_t kMaxPath = UINT16_MAX;
  static_assert(sizeof(FlowHot) == 64);

  // What applying a new rate reads and writes.
  struct FlowProgress {
    double remaining = 0;  // at time `updated_at`
    Time updated_at;
    double amount = 0;
    std::uint64_t seq = 0;  // arrival order: breaks completion ties deterministically
  };

  struct Flow {
    std::vector<ResourceId> long_path;  // only for paths longer than kInlinePath
    std::vector<std::uint32_t> pos;     // index of this flow in links[path[k]].flows
    std::vector<double> weights;        // a flow class's weight per resource when they differ (else empty)
    Callback on_done;
    Time start;
    std::uint32_t generation = 1;
    // The equal-share group the flow belongs to (kNoGroup: solved alone); for a dead slot, the group it
    // stands for in `due`.
    std::uint32_t group = kNoGroup;
    std::uint32_t joining = kNoGroup;  // settle() scratch: the group an arrival is about to join
    bool live = false;
  };

  // Flows that share one saturated link L equally and nothing else: no other flow crosses L or the other
  // finite links of their paths, and none of those links nor a member's cap would bind at their rate. An
  // arrival or departure then changes only their common rate, capacity(L) / (their weights on L), so the
  // group keeps one virtual clock (the work each member has carried since it formed) instead of a
  // remaining amount and a due time per flow: a member finishes when the clock reaches its finish work
  // (the clock at its arrival plus its amount). One entry in `due` (a dead slot) stands for the group.
  struct Group {
    ResourceId link = 0;
    std::uint32_t pseudo = 0;  // the slot standing for the group in `due`
    double weight = 0;         // members' weights on `link`, summed
    double rate = 0;           // each member's rate
    double work = 0;           // the virtual clock at `work_at`
    Time work_at;
    // The least rate at which another link or a member's cap would bind, kept conservatively (it only
    // falls): at or above it the group dissolves and the per-flow solve takes over.
    double bound = kNoCap;
    std::size_t members = 0;
    DueHeap finish;            // members by (finish work as bits, arrival sequence)
    std::vector<ResourceId> owned;  // links marked with this group (some may have been released), once each
    std::vector<std::uint32_t> joins;  // settle() scratch: arrivals about to join
    bool live = false;
  };

  explicit Impl(Simulator& s) : sim(s) {}

  // fair_share.cpp: bookkeeping, events.
  std::uint32_t new_slot() {  // a free flow slot, or a new one
    if (free_slots.empty()) {
      flows.emplace_back();
      hot.emplace_back();
      progress.emplace_back();
      return static_cast<std::uint32_t>(flows.size() - 1);
    }
    const std::uint32_t slot = free_slots.back();
    free_slots.pop_back();
    return slot;
  }
  std::uint32_t slot_of(FlowId id) const;  // throws for unknown ids
  std::uint32_t find_slot(FlowId id) const;  // UINT32_MAX for unknown ids
  FlowId id_of(std::uint32_t slot) const;
  void account(Link& l, Time now);
  void detach(std::uint32_t slot);  // removes a live flow from links, heap and slot table
  void mark_dirty();
  void request_wake();
  void on_wake();
  bool is_done(std::uint32_t slot, Time now) const;
  // A flow's remaining amount at `now` at its current rate (not a group member's: member_remaining).
  double remaining_at(std::uint32_t slot, Time now) const {
    const FlowProgress& f = progress[slot];
    return f.remaining - hot[slot].rate * (now - f.updated_at).to_seconds();
  }
  void set_rate(std::uint32_t slot, double rate, Time now);  // stages the due time: due.commit() after
  void apply_rates(Time now);  // the re-solve's new rates to its region's flows, and their due times
  Time due_time(std::uint32_t slot) const;
  static Time far_due_time(Time from, double rounded_ps);
  // When `remaining` of `amount` units at `rate` from `from` is done (the rounding of due_time()).
  static Time due_after(Time from, double remaining, double amount, double rate);
  void set_path(std::uint32_t slot, std::span<const ResourceId> path);
  std::span<const ResourceId> path(std::uint32_t slot) const {
    const FlowHot& h = hot[slot];
    if (h.path_len <= kInlinePath) return {h.inline_path, h.path_len};
    return {flows[slot].long_path.data(), h.path_len};
  }

  // The load the flow puts on the k-th resource of its path per unit of its rate.
  double weight(std::uint32_t slot, std::size_t k) const {
    const double w = hot[slot].weight;
    return w != kMixedWeights ? w : flows[slot].weights[k];
  }
  FlowId start(std::span<const ResourceId> path, std::span<const double> weights, double amount, Callback on_done,
               double rate_cap);

  // fair_share_group.cpp: equal-share groups.
  double group_work(const Group& g, Time now) const { return g.work + g.rate * (now - g.work_at).to_seconds(); }
  void advance_clock(Group& g, Time now) const {
    g.work = group_work(g, now);
    g.work_at = now;
  }
  double member_remaining(std::uint32_t slot, Time now) const;
  void group_arrivals(Time now);      // arrivals that join a group, or dissolve the groups they touch
  void group_leave(std::uint32_t slot, Time now);  // a member's departure, already off its links' lists
  void group_rerate(std::uint32_t g, Time now);  // the common rate after joins or departures
  void dissolve(std::uint32_t g, Time now);
  void free_group(std::uint32_t g);   // releases its links, its due entry and its slot
  void maybe_form_group(Time now);    // after a solve whose whole region filled at one link
  void schedule_group(std::uint32_t g);

  // fair_share_solver.cpp: the incremental max-min re-solve.
  void settle();
  double arrival_bound(const Link& l, double arrivals_here);
  void collect_region(double threshold);
  void fill_region();

  Simulator& sim;
  std::vector<Link> links;
  // Resource names, one after another (a fabric of 16,384 GPUs names 115,000 resources: a string in each
  // Link cost a heap block apiece and a quarter of the record), and the end of each in `names`.
  std::string names;
  std::vector<std::size_t> name_end;
  mutable std::unordered_map<ResourceId, std::string> named;  // what name() handed out
  std::vector<Flow> flows;
  std::vector<FlowHot> hot;  // indexed like flows
  std::vector<FlowProgress> progress;  // indexed like flows
  std::vector<std::uint32_t> free_slots;
  DueHeap due;
  std::size_t live_count = 0;
  std::uint64_t next_seq = 0;
  std::uint64_t solve_count = 0;
  std::uint64_t refilled = 0;
  bool keep_stats = true;  // links' loads, carried units and busy time (FairShare::keep_resource_stats)
  bool grouping = true;    // FairShare::group_equal_shares
  std::size_t group_min_flows = kGroupMinFlows;
  std::vector<Group> groups;
  std::vector<std::uint32_t> free_groups;
  std::size_t live_groups = 0;
  // A solve's region that filled at one link, every flow at its level, with no flow outside it on its
  // links (collect_region and fill_region set these): the candidates for a group.
  ResourceId filled_at = 0;
  bool filled_alone = false;
  bool region_closed = false;
  std::vector<std::uint32_t> doomed_scratch, touched_scratch;  // group_arrivals()

  // Changes waiting for the next solve.
  bool dirty = false;
  double restart_level = std::numeric_limits<double>::infinity();  // lowest rate a change can affect
  std::vector<std::uint32_t> arrivals;  // slots started since the last solve
  std::vector<ResourceId> seeds;        // resources whose flow set changed

  // The one pending simulator event.
  EventId wake;
  Time wake_at;
  bool in_wake = false;

  // Solver scratch, reused across solves.
  // Re-solve epoch, 32 bits so that a flow's record keeps its weight in one cache line: next_epoch()
  // clears every stamp when it wraps, so a stale stamp never equals the current epoch.
  std::uint32_t epoch = 0;
  void next_epoch();
  std::vector<std::uint32_t> region_flows;
  std::vector<ResourceId> region_links;
  std::vector<std::pair<double, double>> rates_scratch;  // (rate, weight)
  struct Level {
    double level;
    std::uint64_t key;  // resource id, or kCapTag | flow slot
  };
  // The fill's order on (level, key): equal levels resolve by key, so the order never depends on history.
  // Keys are unique, so the order is strict and any priority queue pops the same sequence.
  static bool later(const Level& a, const Level& b) {
    return a.level > b.level || (a.level == b.level && a.key > b.key);
  }
  // The least rate cap of the region's flows in the fill's (level, key) order (collect_region finds it);
  // level +infinity: no region flow has a cap.
  Level least_cap{kNoCap, 0};
  std::vector<Level> levels;      // links' fill levels (a heap)
  std::vector<Level> cap_levels;  // region flows' rate caps (a heap once one is due)
};

[[gnu::always_inline]] inline Time FairShare::Impl::due_after(Time from, double remaining, double amount, double rate) {
  if (remaining <= kDoneFraction * amount) return from;
  if (!(rate > 0)) return Time::max();
  const double ps = remaining / rate * 1e12;
  const double scaled = ps * (1.0 - kSnapFraction);
  if (scaled < 9.2e18) [[likely]] {
    // std::ceil, exactly, without the library call (baseline x86-64 has no rounding instruction): scaled
    // is > 0 here and below 2^63, so truncating through int64 is exact, and so is adding 1 below 2^53
    // (at or above it every double is a whole number and nothing is added).
    const auto whole = static_cast<std::int64_t>(scaled);
    return from + Time::ps(static_cast<double>(whole) < scaled ? whole + 1 : whole);
  }
  return far_due_time(from, std::ceil(scaled));
}

}  // namespace hpcsim

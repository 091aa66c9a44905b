#include "models/collectives/algorithm_selector.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hpcsim {

namespace {

using Pairs = std::vector<std::pair<double, double>>;  // distinct (latency s, share bytes/s)
// A pattern with more distinct pairs is not remembered (every transfer a different share: nothing to gain).
constexpr std::size_t kMaxPairs = 64;

// Working state of one estimate: transfers crossing each resource (sized as routes come: the fabric adds a
// switch link's resource when a route first crosses it), each resource's capacity as read so far (0: not
// read yet), the route being read, and the pattern's routes in flat arrays.
struct Scratch {
  std::vector<int> crossing;
  std::vector<double> capacity;
  Hop hop;
  std::vector<ResourceId> paths;      // every transfer's path, one after another
  std::vector<std::size_t> path_end;  // per transfer: where its path ends in `paths`
  std::vector<double> latency_s;      // per transfer
  // The routes this estimate has looked up, by (from, to, rail): a pipelined schedule's patterns repeat
  // most of their transfers (a tree's window of positions), and a route read here is the one route_once
  // returned. Open addressing on key + 1 (0: empty), a power-of-two table at most half full.
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> slot_route;
  std::vector<ResourceId> route_paths;
  std::vector<std::size_t> route_end;  // per route: where its path ends in route_paths
  std::vector<double> route_latency;

  // The route's index in the route_ arrays.
  std::uint32_t route(const ClusterFabric& fabric, int from, int to, int rail) {
    const std::uint64_t key = ((static_cast<std::uint64_t>(from) << 40) | (static_cast<std::uint64_t>(to) << 16) |
                               static_cast<std::uint64_t>(rail)) + 1;
    if (2 * (route_end.size() + 1) > keys.size()) grow();
    const int shift = 64 - std::countr_zero(keys.size());
    for (std::size_t i = (key * 0x9e3779b97f4a7c15ull) >> shift;; i = (i + 1) & (keys.size() - 1)) {
      if (keys[i] == key) return slot_route[i];
      if (keys[i] != 0) continue;
      const Hop& h = fabric.route_once(from, to, rail, hop);
      keys[i] = key;
      slot_route[i] = static_cast<std::uint32_t>(route_end.size());
      route_paths.insert(route_paths.end(), h.path.begin(), h.path.end());
      route_end.push_back(route_paths.size());
      route_latency.push_back(h.latency_s);
      return slot_route[i];
    }
  }

  void grow() {
    const std::vector<std::uint64_t> old_keys = std::move(keys);
    const std::vector<std::uint32_t> old_routes = std::move(slot_route);
    keys.assign(std::max<std::size_t>(1024, 2 * old_keys.size()), 0);
    slot_route.assign(keys.size(), 0);
    const int shift = 64 - std::countr_zero(keys.size());
    for (std::size_t j = 0; j < old_keys.size(); ++j) {
      if (old_keys[j] == 0) continue;
      std::size_t i = (old_keys[j] * 0x9e3779b97f4a7c15ull) >> shift;
      while (keys[i] != 0) i = (i + 1) & (keys.size() - 1);
      keys[i] = old_keys[j];
      slot_route[i] = old_routes[j];
    }
  }
};

// Keys pack (from, to, rail) into 24 + 24 + 16 bits.
bool packable(const ClusterFabric& fabric) { return fabric.gpus() < (1 << 24) && fabric.rails() < (1 << 16); }

// The slowest of `transfers` run together on the idle fabric: route latency + bytes / (the lowest capacity
// on its path divided by the transfers crossing that resource). Given a subset of a step's transfers it is
// at most the step's time: fewer crossings leave every share as large or larger.
// With `pairs`, also collects the distinct (latency, share) pairs, up to kMaxPairs + 1.
double slowest_transfer(std::span<const Transfer> transfers, const ClusterFabric& fabric, const FairShare& fs,
                        const CollectiveGroup& group, Scratch& s, Pairs* pairs = nullptr) {
  // Each route is looked up once and its resources kept in flat arrays (a few words per transfer), not as
  // routes: an all-pairs pattern over 1,024 GPUs has a million transfers, and caching their routes in the
  // fabric cost more time and memory than the simulation the estimate chooses; looking each up twice (to
  // count the crossings, then to take the shares) was most of a 16,384-GPU step's run time.
  s.paths.clear();
  s.path_end.clear();
  s.latency_s.clear();
  const bool memo = packable(fabric);
  for (const Transfer& t : transfers) {
    const int from = group.gpu(t.src), to = group.gpu(t.dst);
    std::span<const ResourceId> path;
    double latency;
    const int nic = group.nic(t.rail);
    if (memo && nic >= 0 && nic < (1 << 16)) {
      const std::uint32_t k = s.route(fabric, from, to, nic);
      const std::size_t begin = k == 0 ? 0 : s.route_end[k - 1];
      path = std::span<const ResourceId>(s.route_paths.data() + begin, s.route_end[k] - begin);
      latency = s.route_latency[k];
    } else {
      const Hop& hop = fabric.route_once(from, to, nic, s.hop);
      path = hop.path;
      latency = hop.latency_s;
    }
    if (s.crossing.size() < fs.resource_count()) s.crossing.resize(fs.resource_count(), 0);
    for (const ResourceId r : path) ++s.crossing[r];
    s.paths.insert(s.paths.end(), path.begin(), path.end());
    s.path_end.push_back(s.paths.size());
    s.latency_s.push_back(latency);
  }
  if (s.capacity.size() < s.crossing.size()) s.capacity.resize(s.crossing.size(), 0);
  double slowest = 0;
  std::size_t begin = 0;
  for (std::size_t k = 0; k < transfers.size(); ++k) {
    double share = std::numeric_limits<double>::infinity();
    for (std::size_t i = begin; i < s.path_end[k]; ++i) {
      const ResourceId r = s.paths[i];
      double& capacity = s.capacity[r];
      if (capacity == 0) capacity = fs.capacity(r);  // capacities are > 0
      share = std::min(share, capacity / s.crossing[r]);
    }
    begin = s.path_end[k];
    slowest = std::max(slowest, s.latency_s[k] + transfers[k].bytes / share);
    if (pairs && pairs->size() <= kMaxPairs) {
      const std::pair<double, double> pair{s.latency_s[k], share};
      if (std::find(pairs->rbegin(), pairs->rend(), pair) == pairs->rend()) pairs->push_back(pair);
    }
  }
  for (const ResourceId r : s.paths) s.crossing[r] = 0;  // only the counts touched: clearing all cost more
  return slowest;
}

// The transfers leaving the node of the rank that sends the most and those entering the node of the rank
// that receives the most (the first such ranks; each transfer once): on an all-pairs pattern the sender's
// node loads its links as the whole pattern does, and in a tree a parent's node takes several children's
// chunks at once, over PCIe links its GPUs share (NCCL's PXN proxies traffic through the GPU beside the NIC).
void busiest_nodes(const std::vector<Transfer>& transfers, const CollectiveGroup& group, std::vector<Transfer>& out) {
  const auto ranks = static_cast<std::size_t>(group.size());
  std::vector<int> sent(ranks, 0), received(ranks, 0);
  for (const Transfer& t : transfers) {
    ++sent[static_cast<std::size_t>(t.src)];
    ++received[static_cast<std::size_t>(t.dst)];
  }
  const int from = group.node(static_cast<int>(std::max_element(sent.begin(), sent.end()) - sent.begin()));
  const int to = group.node(static_cast<int>(std::max_element(received.begin(), received.end()) - received.begin()));
  out.clear();
  for (const Transfer& t : transfers) {
    if (group.node(t.src) == from || group.node(t.dst) == to) out.push_back(t);
  }
}

// One group's remembered patterns (EstimateMemo), by a hash of their transfers.
struct PatternMemo {
  struct Pattern {
    std::vector<std::array<int, 3>> transfers;  // src, dst, rail
    Pairs pairs;
  };
  std::vector<int> gpus;
  std::unordered_multimap<std::uint64_t, Pattern> patterns;
};

std::uint64_t transfers_hash(const std::vector<Transfer>& transfers) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (const Transfer& t : transfers) {
    for (const int v : {t.src, t.dst, t.rail}) {
      h ^= static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
  }
  return h;
}

bool same_transfers(const std::vector<std::array<int, 3>>& kept, const std::vector<Transfer>& transfers) {
  if (kept.size() != transfers.size()) return false;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    if (kept[k][0] != transfers[k].src || kept[k][1] != transfers[k].dst || kept[k][2] != transfers[k].rail) {
      return false;
    }
  }
  return true;
}

// A pattern's time as slowest_transfer gives it, through `memo` when its transfers all move one size.
double pattern_time_memo(const std::vector<Transfer>& transfers, const ClusterFabric& fabric, const FairShare& fs,
                         const CollectiveGroup& group, Scratch& scratch, PatternMemo& memo) {
  if (transfers.empty()) return slowest_transfer(transfers, fabric, fs, group, scratch);
  const double bytes = transfers.front().bytes;
  for (const Transfer& t : transfers) {
    if (t.bytes != bytes) return slowest_transfer(transfers, fabric, fs, group, scratch);
  }
  const std::uint64_t h = transfers_hash(transfers);
  const auto [first, last] = memo.patterns.equal_range(h);
  for (auto it = first; it != last; ++it) {
    if (!same_transfers(it->second.transfers, transfers)) continue;
    // The same routes and crossings: the same (latency, share) pairs; max over them is slowest_transfer's max.
    double slowest = 0;
    for (const auto& [latency, share] : it->second.pairs) slowest = std::max(slowest, latency + bytes / share);
    return slowest;
  }
  PatternMemo::Pattern kept;
  const double slowest = slowest_transfer(transfers, fabric, fs, group, scratch, &kept.pairs);
  if (kept.pairs.size() <= kMaxPairs) {
    kept.transfers.reserve(transfers.size());
    for (const Transfer& t : transfers) kept.transfers.push_back({t.src, t.dst, t.rail});
    memo.patterns.emplace(h, std::move(kept));
  }
  return slowest;
}

// Sum over the schedule's steps of each pattern's time, `part` choosing which of a pattern's transfers count;
// with `memo` (all transfers counted), through its remembered patterns.
template <typename Part>
double schedule_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                     const CollectiveGroup& group, Part part, PatternMemo* memo = nullptr) {
  Scratch scratch;
  std::vector<double> pattern_time(schedule.patterns(), -1);
  std::vector<Transfer> transfers;
  double total = schedule.setup_latency_s();
  for (int step = 0; step < schedule.steps(); ++step) {
    const int p = schedule.pattern(step);
    if (pattern_time[p] < 0) {
      schedule.transfers(p, transfers);
      pattern_time[p] = memo ? pattern_time_memo(transfers, fabric, fs, group, scratch, *memo)
                             : slowest_transfer(part(transfers), fabric, fs, group, scratch);
    }
    total += pattern_time[p];
  }
  return total;
}

}  // namespace

struct EstimateMemo::Impl {
  const ClusterFabric* fabric = nullptr;
  std::vector<PatternMemo> groups;  // a step has a handful

  PatternMemo& of(const ClusterFabric& f, const CollectiveGroup& group) {
    if (fabric && fabric != &f) throw std::invalid_argument("EstimateMemo: estimates of another fabric");
    fabric = &f;
    for (PatternMemo& m : groups) {
      if (static_cast<int>(m.gpus.size()) != group.size()) continue;
      bool same = true;
      for (int r = 0; same && r < group.size(); ++r) same = m.gpus[static_cast<std::size_t>(r)] == group.gpu(r);
      if (same) return m;
    }
    PatternMemo& m = groups.emplace_back();
    for (int r = 0; r < group.size(); ++r) m.gpus.push_back(group.gpu(r));
    return m;
  }
};

EstimateMemo::EstimateMemo() : impl_(std::make_unique<Impl>()) {}
EstimateMemo::~EstimateMemo() = default;

double estimate_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                     const CollectiveGroup& group, EstimateMemo* memo) {
  PatternMemo* patterns = memo ? &memo->impl_->of(fabric, group) : nullptr;
  return schedule_time(
      schedule, fabric, fs, group, [](const std::vector<Transfer>& all) { return std::span<const Transfer>(all); },
      patterns);
}

double estimate_time(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                     const CollectiveGroup& group) {
  return schedule_time(schedule, fabric, fs, group,
                       [](const std::vector<Transfer>& all) { return std::span<const Transfer>(all); });
}

double estimate_lower_bound(const CollectiveSchedule& schedule, const ClusterFabric& fabric, const FairShare& fs,
                            const CollectiveGroup& group) {
  std::vector<Transfer> some;
  return schedule_time(schedule, fabric, fs, group, [&](const std::vector<Transfer>& all) {
    busiest_nodes(all, group, some);
    return std::span<const Transfer>(some);
  });
}

CollectiveTooLarge::CollectiveTooLarge(CollectiveOp op, int ranks, std::uint64_t transfers, std::uint64_t budget)
    : std::runtime_error(std::string(op_name(op)) + " over " + std::to_string(ranks) + " GPUs moves " +
                         std::to_string(transfers) + " distinct messages at the least; hpcsim simulates at most " +
                         std::to_string(budget) + " in one collective"),
      op(op),
      ranks(ranks),
      transfers(transfers) {}

std::optional<CollectiveTooLarge> over_transfer_budget(CollectiveOp op, const CollectiveGroup& group, double bytes,
                                                       std::optional<CollectiveAlgorithm> forced,
                                                       const ScheduleOptions& options, std::uint64_t transfer_budget) {
  std::optional<std::uint64_t> fewest;
  for (const CollectiveAlgorithm a : algorithms_for(op)) {
    if (forced ? a != *forced : !selectable(op, a, group)) continue;
    const std::uint64_t n = build_schedule(op, a, group, bytes, options).distinct_transfers();
    if (n <= transfer_budget) return std::nullopt;
    fewest = std::min(fewest.value_or(n), n);
  }
  if (!fewest) return std::nullopt;
  return CollectiveTooLarge(op, group.size(), *fewest, transfer_budget);
}

CollectiveAlgorithm select_algorithm(CollectiveOp op, double bytes, const ClusterFabric& fabric,
                                     const FairShare& fs, const CollectiveGroup& group,
                                     const ScheduleOptions& options, std::uint64_t transfer_budget,
                                     EstimateMemo* memo) {
  std::vector<CollectiveAlgorithm> runnable;
  for (const CollectiveAlgorithm a : algorithms_for(op)) {
    if (selectable(op, a, group)) runnable.push_back(a);
  }
  if (runnable.empty()) throw std::logic_error("no algorithm the selector may pick for " + std::string(op_name(op)));
  std::vector<CollectiveSchedule> schedules;
  std::vector<CollectiveAlgorithm> affordable;
  std::uint64_t fewest = std::numeric_limits<std::uint64_t>::max();
  for (const CollectiveAlgorithm a : runnable) {
    CollectiveSchedule s = build_schedule(op, a, group, bytes, options);
    fewest = std::min(fewest, s.distinct_transfers());
    if (s.distinct_transfers() <= transfer_budget) {
      affordable.push_back(a);
      schedules.push_back(std::move(s));
    }
  }
  if (affordable.empty()) throw CollectiveTooLarge(op, group.size(), fewest, transfer_budget);
  // Each schedule is first bounded from its busiest senders' routes alone (estimate_lower_bound: a few
  // routes per pattern), and the full estimates are made in the order of those bounds, lowest first. A
  // schedule whose bound is already above the best estimate so far (or equal to it, for one listed later)
  // cannot win, since its estimate is at least its bound, and its transfers are never routed: at 16,384
  // GPUs a tree's estimate routes 1.8 million transfers only to lose to halving-doubling. The pick is
  // the one full estimates of every schedule make: the lowest estimate, ties to the earliest listed.
  std::vector<double> bound(affordable.size());
  std::vector<std::size_t> order(affordable.size());
  for (std::size_t i = 0; i < affordable.size(); ++i) {
    bound[i] = estimate_lower_bound(schedules[i], fabric, fs, group);
    if (std::isnan(bound[i])) bound[i] = -std::numeric_limits<double>::infinity();  // no bound: estimate it
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bound[a] < bound[b]; });
  std::size_t best = 0;
  double best_time = std::numeric_limits<double>::infinity();
  for (const std::size_t i : order) {
    if (bound[i] > best_time || (bound[i] == best_time && i > best)) continue;
    const double t = estimate_time(schedules[i], fabric, fs, group, memo);
    if (t < best_time || (t == best_time && i < best)) {
      best_time = t;
      best = i;
    }
  }
  return affordable[best];
}

}  // namespace hpcsim

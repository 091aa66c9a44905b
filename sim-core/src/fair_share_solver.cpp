// Incremental max-min fair re-solve (progressive filling restricted to what a change can affect).
//
// Progressive filling freezes flows in increasing order of rate ("water level"). A set of changes cannot
// alter anything below a restart level lambda:
//  - a departing flow of rate r only left room on links that filled at levels >= r;
//  - an arriving flow makes each of its links fill no earlier than the level at which the link's
//    current flows plus the newcomer (counted as uncapped) would fill it.
// So flows below lambda keep their rates, and only flows at or above lambda that are connected to a
// changed link through other such flows (and finite links) are re-filled, on capacities reduced by the
// fixed flows. That region is a subset of the changed connected component, never more.
#include <algorithm>
#include <cmath>
#include <limits>

#include "fair_share_impl.h"

namespace hpcsim {

namespace {
constexpr std::uint64_t kCapTag = std::uint64_t{1} << 32;
// Flows this close below lambda are re-solved too: including extra flows is always correct and
// protects against rounding in lambda itself.
constexpr double kThresholdSlack = 1e-9;
// Passes of the sort-free arrival bound before it falls back to sorting (random churn needs 2-4).
constexpr int kBoundPasses = 8;
}  // namespace

void FairShare::Impl::next_epoch() {
  if (++epoch != 0) return;
  for (FlowHot& h : hot) h.stamp = 0;
  for (Link& l : links) l.stamp = 0;
  epoch = 1;
}

double FairShare::Impl::arrival_bound(const Link& l, double arrivals_here) {
  rates_scratch.clear();
  for (std::size_t i = 0; i < l.flows.size(); ++i) {
    const std::uint32_t slot = l.flows[i];
    if (!hot[slot].solved) continue;
    rates_scratch.emplace_back(hot[slot].rate, l.weights[i]);
  }
  // (Weights w_j, arrivals counted by weight: a flow class of n counts n times.)
  // Load at level x is sum(w_j min(rate_j, x)) + arrivals_here * x; we want the x where it reaches the
  // capacity. Starting from x = 0, x <- (capacity - sum of rates below x) / (flows at or above x) never
  // overshoots it and rises until the set below x stops changing, where it is exact; so no sort is
  // needed. Each pass adds at least one rate to the set, so adversarial rates could take a pass per
  // flow: after a few passes, sort instead.
  double x = 0;
  for (int pass = 0; pass < kBoundPasses; ++pass) {
    double below = 0;
    double at_or_above = arrivals_here;
    for (const auto& [r, w] : rates_scratch) {
      if (r < x) {
        below += r * w;
      } else {
        at_or_above += w;
      }
    }
    const double next = (l.capacity - below) / at_or_above;
    if (!(next > x)) return std::max(x, 0.0);
    x = next;
  }
  std::sort(rates_scratch.begin(), rates_scratch.end());
  double below = 0, above = arrivals_here;
  for (const auto& [r, w] : rates_scratch) above += w;
  for (const auto& [r, w] : rates_scratch) {
    x = (l.capacity - below) / above;
    if (x <= r) return std::max(x, 0.0);
    below += r * w;
    above -= w;
  }
  return std::max((l.capacity - below) / arrivals_here, 0.0);
}

void FairShare::Impl::settle() {
  if (!dirty) return;
  dirty = false;
  ++solve_count;
  const Time now = sim.now();

  // Drop arrivals that were cancelled (or whose slot was reused) before this solve, and duplicates.
  next_epoch();
  std::size_t kept = 0;
  for (const std::uint32_t slot : arrivals) {
    FlowHot& h = hot[slot];
    if (!flows[slot].live || h.solved || h.stamp == epoch) continue;
    h.stamp = epoch;
    arrivals[kept++] = slot;
  }
  arrivals.resize(kept);
  if (live_groups > 0) {
    group_arrivals(now);
    dirty = false;  // a dissolved group's seeds are solved below
    // Links a group owns change only through it.
    std::erase_if(seeds, [&](ResourceId r) { return links[r].group != kNoGroup; });
    if (arrivals.empty() && seeds.empty() && restart_level == std::numeric_limits<double>::infinity()) return;
  }

  // Restart level: departures were folded into restart_level by detach(); add each arrival's links.
  double lambda = restart_level;
  for (const std::uint32_t slot : arrivals) {
    const std::span<const ResourceId> p = path(slot);
    for (std::size_t k = 0; k < p.size(); ++k) {
      Link& l = links[p[k]];
      if (!l.finite()) continue;
      if (l.stamp != epoch) {
        l.stamp = epoch;
        l.unfrozen = 0;
        l.unfrozen_weight = 0;
      }
      ++l.unfrozen;  // used here as "arrivals on this link"
      l.unfrozen_weight += weight(slot, k);
    }
  }
  for (const std::uint32_t slot : arrivals) {
    for (const ResourceId r : path(slot)) {
      Link& l = links[r];
      if (!l.finite() || l.unfrozen == 0) continue;
      lambda = std::min(lambda, arrival_bound(l, l.unfrozen_weight));
      l.unfrozen = 0;  // computed once per link
    }
  }

  collect_region(lambda * (1.0 - kThresholdSlack));
  fill_region();
  refilled += region_flows.size();
  apply_rates(now);
  if (grouping && !keep_stats && filled_alone && region_closed && region_flows.size() >= group_min_flows) {
    maybe_form_group(now);
  }
  arrivals.clear();
  seeds.clear();
  restart_level = std::numeric_limits<double>::infinity();
}

void FairShare::Impl::collect_region(double threshold) {
  next_epoch();
  region_flows.clear();
  region_links.clear();
  least_cap = {kNoCap, ~std::uint64_t{0}};
  region_closed = true;
  auto visit_link = [&](ResourceId r) {
    Link& l = links[r];
    // Infinite resources never fill, so they do not couple the flows crossing them.
    if (!l.finite() || l.stamp == epoch) return;
    l.stamp = epoch;
    l.residual = l.capacity;
    l.unfrozen = 0;
    l.unfrozen_weight = 0;
    region_links.push_back(r);
  };
  auto join = [&](std::uint32_t slot) {
    FlowHot& h = hot[slot];
    h.stamp = epoch;
    h.frozen = false;
    // Uncapped flows (cap +infinity) are skipped: the least cap's key is read only once its level is finite.
    if (h.cap != kNoCap) {
      const std::uint64_t key = kCapTag | slot;
      if (h.cap < least_cap.level || (h.cap == least_cap.level && key < least_cap.key)) least_cap = {h.cap, key};
    }
    region_flows.push_back(slot);
    for (const ResourceId r : path(slot)) visit_link(r);
  };
  for (const std::uint32_t slot : arrivals) join(slot);
  for (const ResourceId r : seeds) visit_link(r);
  // Breadth-first over links: every flow at or above the threshold on a visited link joins the region;
  // the others are fixed and only reduce the capacity left.
  for (std::size_t i = 0; i < region_links.size(); ++i) {
    const ResourceId id = region_links[i];
    Link& l = links[id];
    for (std::size_t j = 0; j < l.flows.size(); ++j) {
      const std::uint32_t slot = l.flows[j];
      const FlowHot& h = hot[slot];
      const double w = l.weights[j];
      if (h.stamp != epoch) {
        if (h.solved && h.rate < threshold) {
          l.residual -= h.rate * w;
          region_closed = false;
          continue;
        }
        join(slot);
      }
      ++l.unfrozen;
      l.unfrozen_weight += w;
    }
  }
}

void FairShare::Impl::fill_region() {
  // A closure, not the function's address, so that the heap algorithms inline the comparison.
  constexpr auto later = [](const Level& a, const Level& b) { return Impl::later(a, b); };
  levels.clear();
  filled_alone = false;
  for (const ResourceId r : region_links) {
    const Link& l = links[r];
    if (l.unfrozen > 0) levels.push_back({std::max(l.residual, 0.0) / l.unfrozen_weight, r});
  }
  // A link that every open flow crosses: they all freeze at its level and the fill ends, so the links' scratch
  // (residuals, counts), which nothing reads after the fill, is left as it is.
  auto freeze_all_open = [&](const Link& l, double level) {
    for (const std::uint32_t slot : l.flows) {
      FlowHot& h = hot[slot];
      if (h.stamp == epoch && !h.frozen) {
        h.frozen = true;
        h.new_rate = level;
      }
    }
  };
  // The common solve of a saturated shared link: the first link to fill is crossed by every region flow.
  // Found by one scan, without the heap; the same link the heap would pop first, the same rates.
  if (!levels.empty()) {
    const Level* first = &levels.front();
    for (const Level& e : levels) {
      if (later(*first, e)) first = &e;
    }
    const Link& l = links[static_cast<ResourceId>(first->key)];
    const bool cap_first = least_cap.level != kNoCap && later(*first, least_cap);
    if (!cap_first && l.unfrozen == region_flows.size()) {
      freeze_all_open(l, first->level);
      filled_alone = true;
      filled_at = static_cast<ResourceId>(first->key);
      return;
    }
  }
  std::make_heap(levels.begin(), levels.end(), later);
  // Caps are taken in the same (level, key) order from their own heap, merged with the links' one. It is
  // built only when a cap is due first (until then collect_region's least cap is the one to compare): in
  // a solve that a shared link settles, no cap is ever taken.
  cap_levels.clear();
  bool cap_heap = false;
  auto caps_left = [&] { return cap_heap ? !cap_levels.empty() : least_cap.level != kNoCap; };
  auto next = [&]() {
    const bool cap_first =
        caps_left() && (levels.empty() || later(levels.front(), cap_heap ? cap_levels.front() : least_cap));
    std::vector<Level>& from = cap_first ? cap_levels : levels;
    if (cap_first && !cap_heap) {
      for (const std::uint32_t slot : region_flows) {
        if (hot[slot].cap != kNoCap) cap_levels.push_back({hot[slot].cap, kCapTag | slot});
      }
      std::make_heap(cap_levels.begin(), cap_levels.end(), later);
      cap_heap = true;
    }
    std::pop_heap(from.begin(), from.end(), later);
    const Level e = from.back();
    from.pop_back();
    return e;
  };

  // Once every region flow is frozen, the entries left in the heap can only be skipped (a link with no
  // unfrozen flow, a cap of a frozen flow): stop there.
  std::size_t open = region_flows.size();
  auto freeze = [&](std::uint32_t slot, double level) {
    --open;
    hot[slot].frozen = true;
    hot[slot].new_rate = level;
    const std::span<const ResourceId> p = path(slot);
    for (std::size_t k = 0; k < p.size(); ++k) {
      Link& m = links[p[k]];
      if (!m.finite()) continue;
      const double w = weight(slot, k);
      m.residual -= level * w;
      m.unfrozen_weight -= w;
      --m.unfrozen;
    }
  };
  while (open > 0 && !(levels.empty() && !caps_left())) {
    const Level e = next();
    if (e.key & kCapTag) {
      const auto slot = static_cast<std::uint32_t>(e.key);
      if (!hot[slot].frozen) freeze(slot, e.level);
      continue;
    }
    Link& l = links[static_cast<ResourceId>(e.key)];
    if (l.unfrozen == 0) continue;
    // Freezing flows elsewhere only raises a link's fill level, so a stale entry is pushed back with
    // its current level instead of being updated in place.
    const double level = std::max(l.residual, 0.0) / l.unfrozen_weight;
    if (level > e.level) {
      levels.push_back({level, e.key});
      std::push_heap(levels.begin(), levels.end(), later);
      continue;
    }
    if (l.unfrozen == open) {
      freeze_all_open(l, level);
      break;
    }
    for (const std::uint32_t slot : l.flows) {
      if (hot[slot].stamp == epoch && !hot[slot].frozen) freeze(slot, level);
    }
  }
  // Every region flow crosses a finite link or has a cap (start_flow checks), so all are frozen now.
}

}  // namespace hpcsim

// Equal-share groups (FairShare::group_equal_shares): flows that one saturated link shares equally, with no
// other flow on their links, move on one virtual clock, so that an arrival or a departure among them costs
// heap operations instead of a re-fill of all of them. The per-flow solve forms a group when a region it
// solved filled at one link and touched nothing else (maybe_form_group); the group dissolves back into
// per-flow state whenever a change could reach beyond it (dissolve), which is always correct, only slower.
#include <algorithm>
#include <bit>
#include <limits>

#include "fair_share_impl.h"

namespace hpcsim {

namespace {
// A group dissolves before its rate comes this close to a rate at which another link or a cap would bind.
constexpr double kBoundSlack = 1e-9;

std::uint64_t finish_bits(double work) { return std::bit_cast<std::uint64_t>(std::max(work, 0.0)); }
}  // namespace

// A member keeps its finish work (the group's clock when it arrived plus its amount) in progress.remaining.
double FairShare::Impl::member_remaining(std::uint32_t slot, Time now) const {
  return progress[slot].remaining - group_work(groups[flows[slot].group], now);
}

void FairShare::Impl::schedule_group(std::uint32_t gi) {
  Group& g = groups[gi];
  const std::uint32_t head = g.finish.top().slot;
  const FlowProgress& p = progress[head];
  const Time at = due_after(g.work_at, p.remaining - g.work, p.amount, g.rate);
  due.set(g.pseudo, static_cast<DueHeap::Key>(at.picoseconds()), p.seq);
}

void FairShare::Impl::group_rerate(std::uint32_t gi, Time now) {
  Group& g = groups[gi];
  advance_clock(g, now);
  const double rate = links[g.link].capacity / g.weight;
  if (!(g.weight > 0) || !(rate < g.bound * (1.0 - kBoundSlack))) {
    dissolve(gi, now);
    return;
  }
  g.rate = rate;
  schedule_group(gi);
}

void FairShare::Impl::group_leave(std::uint32_t slot, Time now) {
  const std::uint32_t gi = flows[slot].group;
  Group& g = groups[gi];
  g.finish.erase(slot);
  --g.members;
  const std::span<const ResourceId> p = path(slot);
  for (std::size_t k = 0; k < p.size(); ++k) {
    Link& l = links[p[k]];
    if (l.group != gi) continue;  // an infinite link
    const double w = weight(slot, k);
    if (p[k] == g.link) {
      g.weight -= w;
      --l.group_members;
    } else if (--l.group_members == 0) {
      l.group = kNoGroup;  // released: another flow may cross it again
      l.group_weight = 0;
    } else {
      l.group_weight -= w;
    }
  }
  flows[slot].group = kNoGroup;
  if (g.members > 0) {
    group_rerate(gi, now);
    return;
  }
  free_group(gi);  // the last member left: nothing to hand back to the per-flow solve
}

void FairShare::Impl::free_group(std::uint32_t gi) {
  Group& g = groups[gi];
  for (const ResourceId r : g.owned) {
    Link& l = links[r];
    if (l.listed_by == gi) l.listed_by = kNoGroup;  // (another group may list it since its release)
    if (l.group != gi) continue;
    l.group = kNoGroup;
    l.group_members = 0;
    l.group_weight = 0;
  }
  due.erase(g.pseudo);
  flows[g.pseudo].group = kNoGroup;
  ++flows[g.pseudo].generation;
  free_slots.push_back(g.pseudo);
  g = Group{};
  free_groups.push_back(gi);
  --live_groups;
}

void FairShare::Impl::dissolve(std::uint32_t gi, Time now) {
  Group& g = groups[gi];
  const double work = group_work(g, now);
  // Arrivals that were joining at this instant go back to being arrivals of the per-flow solve.
  for (const std::uint32_t s : g.joins) {
    flows[s].joining = kNoGroup;
    if (flows[s].group != gi) continue;
    flows[s].group = kNoGroup;
    progress[s].remaining = progress[s].amount;
    progress[s].updated_at = now;
    hot[s].rate = 0;
    hot[s].solved = false;
  }
  g.joins.clear();
  // The members leave at the rate they had until now, as a solve would have left them.
  due.erase(g.pseudo);  // before the batch below (free_group's erase then finds nothing)
  for (const std::uint32_t s : links[g.link].flows) {
    if (flows[s].group != gi) continue;
    flows[s].group = kNoGroup;
    FlowProgress& p = progress[s];
    p.remaining = std::max(0.0, p.remaining - work);
    p.updated_at = now;
    hot[s].rate = g.rate;
    hot[s].solved = true;
    due.stage(s, static_cast<DueHeap::Key>(due_after(now, p.remaining, p.amount, g.rate).picoseconds()), p.seq);
  }
  due.commit();
  seeds.push_back(g.link);
  restart_level = std::min(restart_level, g.rate);
  free_group(gi);
  mark_dirty();
}

void FairShare::Impl::group_arrivals(Time now) {
  // Which group each arrival would join: the one whose shared link it crosses, if every other finite
  // link it crosses is that group's or carries only arrivals joining it. Any other touch of a group's
  // link dissolves that group.
  std::vector<std::uint32_t>& doomed = doomed_scratch;
  std::vector<std::uint32_t>& touched = touched_scratch;
  doomed.clear();
  touched.clear();
  auto doom = [&](std::uint32_t gi) {
    if (std::find(doomed.begin(), doomed.end(), gi) == doomed.end()) doomed.push_back(gi);
  };
  for (const std::uint32_t a : arrivals) {
    std::uint32_t target = kNoGroup;
    bool touches = false;
    for (const ResourceId r : path(a)) {
      const Link& l = links[r];
      if (l.group == kNoGroup) continue;
      touches = true;
      if (r == groups[l.group].link && target == kNoGroup) target = l.group;
    }
    if (!touches) continue;
    bool ok = true;
    for (const ResourceId r : path(a)) {
      const Link& l = links[r];
      if (l.group != kNoGroup && l.group != target) {
        ok = false;
        doom(l.group);
      }
    }
    if (target == kNoGroup) continue;  // it crosses only other links of groups: those dissolve
    if (!ok) {
      doom(target);
      continue;
    }
    flows[a].joining = target;
    if (groups[target].joins.empty()) touched.push_back(target);
    groups[target].joins.push_back(a);
  }
  // An unowned link a joiner crosses must carry nothing but joiners of the same group.
  for (const std::uint32_t gi : touched) {
    for (const std::uint32_t a : groups[gi].joins) {
      for (const ResourceId r : path(a)) {
        const Link& l = links[r];
        if (!l.finite() || l.group != kNoGroup) continue;
        for (const std::uint32_t s : l.flows) {
          if (flows[s].joining != gi) doom(gi);
        }
      }
    }
  }
  for (const std::uint32_t gi : doomed) {
    if (groups[gi].live) dissolve(gi, now);
  }
  for (const std::uint32_t gi : touched) {
    Group& g = groups[gi];
    if (!g.live) continue;  // dissolved above
    advance_clock(g, now);  // the joiners' finish work starts from the clock now
    for (const std::uint32_t a : g.joins) {
      const std::span<const ResourceId> p = path(a);
      for (std::size_t k = 0; k < p.size(); ++k) {
        Link& l = links[p[k]];
        if (!l.finite()) continue;
        const double w = weight(a, k);
        ++l.group_members;
        if (p[k] == g.link) {
          g.weight += w;
          continue;
        }
        if (l.group == kNoGroup) {
          l.group = gi;
          // A link released and taken again is listed once, so a long-lived group's list stays bounded.
          if (l.listed_by != gi) g.owned.push_back(p[k]);
          l.listed_by = gi;
        }
        l.group_weight += w;
        g.bound = std::min(g.bound, l.capacity / l.group_weight);
      }
      g.bound = std::min(g.bound, hot[a].cap);
      flows[a].group = gi;
      hot[a].solved = true;
      FlowProgress& fp = progress[a];
      fp.remaining = g.work + fp.amount;  // finish work
      g.finish.set(a, finish_bits(fp.remaining), fp.seq);
      ++g.members;
    }
    group_rerate(gi, now);  // dissolves (the joiners back to arrivals) if a bound is reached
    if (!g.live) continue;
    for (const std::uint32_t a : g.joins) flows[a].joining = kNoGroup;
    g.joins.clear();
  }
  std::erase_if(arrivals, [&](std::uint32_t a) { return flows[a].group != kNoGroup; });
}

void FairShare::Impl::maybe_form_group(Time now) {
  const Link& shared = links[filled_at];
  if (shared.group != kNoGroup) return;
  const double level = shared.capacity / shared.unfrozen_weight;
  double bound = least_cap.level;
  for (const ResourceId r : region_links) {
    const Link& l = links[r];
    if (l.group != kNoGroup) return;
    if (r != filled_at && l.unfrozen > 0) bound = std::min(bound, l.capacity / l.unfrozen_weight);
  }
  if (!(level < bound * (1.0 - kBoundSlack))) return;
  std::uint32_t gi;
  if (!free_groups.empty()) {
    gi = free_groups.back();
    free_groups.pop_back();
  } else {
    groups.emplace_back();
    gi = static_cast<std::uint32_t>(groups.size() - 1);
  }
  const std::uint32_t pseudo = new_slot();  // a dead slot: never live, so no FlowId finds it
  Group& g = groups[gi];
  g = Group{};
  g.live = true;
  g.link = filled_at;
  g.pseudo = pseudo;
  g.weight = shared.unfrozen_weight;
  g.rate = level;
  g.work = 0;
  g.work_at = now;
  g.bound = bound;
  ++live_groups;
  flows[pseudo].group = gi;
  for (const std::uint32_t s : region_flows) {
    FlowProgress& p = progress[s];
    p.remaining = std::max(0.0, remaining_at(s, now));
    p.updated_at = now;
    flows[s].group = gi;
    due.erase(s);
    g.finish.stage(s, finish_bits(p.remaining), p.seq);
  }
  g.finish.commit();
  g.members = region_flows.size();
  for (const ResourceId r : region_links) {
    Link& l = links[r];
    if (l.unfrozen == 0) continue;  // a changed link the region's flows no longer cross
    l.group = gi;
    l.group_members = l.unfrozen;
    l.group_weight = l.unfrozen_weight;
    l.listed_by = gi;
    g.owned.push_back(r);
  }
  schedule_group(gi);
}

}  // namespace hpcsim

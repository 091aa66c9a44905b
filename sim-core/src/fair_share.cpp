// FairShare bookkeeping: resources, flow slots, lazy accounting and the single pending wake-up event.
// The max-min re-solve itself lives in fair_share_solver.cpp.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "fair_share_impl.h"

namespace hpcsim {

namespace {
[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("FairShare: " + what); }
}  // namespace

// ---- Impl helpers ----------------------------------------------------------------------------------

std::uint32_t FairShare::Impl::find_slot(FlowId id) const {
  const auto slot = static_cast<std::uint32_t>(id & 0xffffffffu);
  const auto generation = static_cast<std::uint32_t>(id >> 32);
  if (slot >= flows.size()) return UINT32_MAX;
  const Flow& f = flows[slot];
  return (f.live && f.generation == generation) ? slot : UINT32_MAX;
}

std::uint32_t FairShare::Impl::slot_of(FlowId id) const {
  const std::uint32_t slot = find_slot(id);
  if (slot == UINT32_MAX) fail("unknown or finished flow " + std::to_string(id));
  return slot;
}

FlowId FairShare::Impl::id_of(std::uint32_t slot) const {
  return (static_cast<FlowId>(flows[slot].generation) << 32) | slot;
}

void FairShare::Impl::account(Link& l, Time now) {
  if (l.accounted_at == now) return;  // a re-solve touches a link once per flow: skip the repeats
  l.carried += l.load * (now - l.accounted_at).to_seconds();
  l.accounted_at = now;
}

bool FairShare::Impl::is_done(std::uint32_t slot, Time now) const {
  return remaining_at(slot, now) <= kDoneFraction * progress[slot].amount;
}

[[gnu::always_inline]] inline Time FairShare::Impl::due_time(std::uint32_t slot) const {
  const FlowProgress& f = progress[slot];
  return due_after(f.updated_at, f.remaining, f.amount, hot[slot].rate);
}

// A flow that ends 2^63 ps (106 days) or more from now: exact 128-bit arithmetic, "never" past the end of
// time. Out of line, so the common case above stays small enough to inline.
[[gnu::noinline]] Time FairShare::Impl::far_due_time(Time from, double rounded_ps) {
  if (rounded_ps >= (Time::max() - from).to_seconds() * 1e12) return Time::max();
  return from + Time::ps_exact(static_cast<Time::Rep>(rounded_ps));
}

[[gnu::always_inline]] inline void FairShare::Impl::set_rate(std::uint32_t slot, double new_rate, Time now) {
  FlowProgress& f = progress[slot];
  FlowHot& h = hot[slot];
  f.remaining = remaining_at(slot, now);
  f.updated_at = now;
  if (keep_stats) {
    const std::span<const ResourceId> p = path(slot);
    for (std::size_t k = 0; k < p.size(); ++k) {
      Link& l = links[p[k]];
      account(l, now);
      l.load += (new_rate - h.rate) * weight(slot, k);
    }
  }
  h.rate = new_rate;
  h.solved = true;
  due.stage(slot, static_cast<DueHeap::Key>(due_time(slot).picoseconds()), f.seq);  // settle() commits the batch
}

void FairShare::Impl::apply_rates(Time now) {
  for (const std::uint32_t slot : region_flows) {
    const FlowHot& h = hot[slot];
    if (!h.solved || h.new_rate != h.rate) set_rate(slot, h.new_rate, now);
  }
  due.commit();
}

void FairShare::Impl::set_path(std::uint32_t slot, std::span<const ResourceId> p) {
  FlowHot& h = hot[slot];
  h.path_len = static_cast<std::uint16_t>(p.size());
  if (p.size() <= kInlinePath) {
    std::copy(p.begin(), p.end(), h.inline_path);
  } else {
    flows[slot].long_path.assign(p.begin(), p.end());
  }
}

void FairShare::Impl::detach(std::uint32_t slot) {
  Flow& f = flows[slot];
  const std::span<const ResourceId> f_path = path(slot);
  const double rate = hot[slot].rate;
  const Time now = sim.now();
  // A group's member changes only its group's rate (group_leave), never the per-flow solve's state.
  const bool member = f.group != kNoGroup;
  if (!member && hot[slot].solved && !f.pos.empty()) restart_level = std::min(restart_level, rate);
  for (std::size_t k = 0; k < f.pos.size(); ++k) {
    const ResourceId r = f_path[k];
    Link& l = links[r];
    if (keep_stats) {
      account(l, now);
      l.load -= rate * weight(slot, k);
    }
    // Swap-remove, then tell the moved flow where it now sits in this link's list.
    const std::uint32_t moved = l.flows.back();
    l.flows[f.pos[k]] = moved;
    l.flows.pop_back();
    l.weights[f.pos[k]] = l.weights.back();
    l.weights.pop_back();
    if (moved != slot) {
      Flow& m = flows[moved];
      const std::span<const ResourceId> m_path = path(moved);
      for (std::size_t j = 0; j < m_path.size(); ++j) {
        if (m_path[j] == r) m.pos[j] = f.pos[k];
      }
    }
    if (l.flows.empty() && keep_stats) {
      l.load = 0;  // drop accumulated rounding
      l.busy_total += now - l.busy_since;
    }
    if (!member) seeds.push_back(r);
  }
  const bool had_links = !f.pos.empty();
  if (member) {
    group_leave(slot, now);
  } else {
    due.erase(slot);
  }
  f.live = false;
  f.on_done.reset();
  ++f.generation;
  free_slots.push_back(slot);
  --live_count;
  if (had_links && !member) mark_dirty();
}

void FairShare::Impl::mark_dirty() {
  dirty = true;
  request_wake();
}

void FairShare::Impl::request_wake() {
  if (in_wake) return;  // on_wake() reschedules when it is done
  const bool pending = sim.is_pending(wake);
  Time desired = Time::max();
  if (dirty) {
    desired = sim.now();
  } else if (!due.empty()) {
    desired = std::max(sim.now(), Time::ps_exact(static_cast<Time::Rep>(due.top().due_ps())));
  }
  if (desired == Time::max()) {
    if (pending) sim.cancel(wake);
    wake = {};
    return;
  }
  if (pending && wake_at == desired) return;
  if (pending) sim.cancel(wake);
  wake = sim.schedule_at(desired, [this] { on_wake(); });
  wake_at = desired;
}

void FairShare::Impl::on_wake() {
  wake = {};
  struct Guard {  // a throwing callback must not leave the solver believing it is still inside on_wake
    bool& flag;
    ~Guard() { flag = false; }
  } guard{in_wake};
  in_wake = true;
  const Time now = sim.now();
  do {
    settle();
    while (!due.empty()) {
      std::uint32_t slot = due.top().slot;
      const bool late = due.top().due_ps() > static_cast<DueHeap::Key>(now.picoseconds());
      if (!flows[slot].live) {  // a group's entry: its member that finishes first
        slot = groups[flows[slot].group].finish.top().slot;
        if (late && member_remaining(slot, now) > kDoneFraction * progress[slot].amount) break;
      } else if (late && !is_done(slot, now)) {
        break;
      }
      Flow& f = flows[slot];
      const FlowId id = id_of(slot);
      Callback cb = std::move(f.on_done);
      detach(slot);
      if (cb) cb(id);  // may start or cancel flows: they mark the solver dirty, handled by the loop
    }
  } while (dirty);
  in_wake = false;
  request_wake();
}

// ---- Public API ------------------------------------------------------------------------------------

FairShare::FairShare(Simulator& sim) : impl_(std::make_unique<Impl>(sim)) {}
FairShare::~FairShare() {
  if (impl_->sim.is_pending(impl_->wake)) impl_->sim.cancel(impl_->wake);
}

ResourceId FairShare::add_resource(double capacity, std::string name) {
  if (!(capacity > 0)) fail("resource capacity must be > 0, got " + std::to_string(capacity));
  Impl::Link l;
  l.capacity = capacity;
  impl_->names += name;
  impl_->name_end.push_back(impl_->names.size());
  l.accounted_at = impl_->sim.now();
  impl_->links.push_back(std::move(l));
  return static_cast<ResourceId>(impl_->links.size() - 1);
}

FlowId FairShare::start_flow(std::span<const ResourceId> path, double amount, Callback on_done,
                             double rate_cap) {
  return impl_->start(path, {}, amount, std::move(on_done), rate_cap);
}

FlowId FairShare::start_flow_class(std::span<const ResourceId> path, std::span<const double> weights, double amount,
                                   Callback on_done, double rate_cap) {
  if (weights.size() != path.size()) {
    fail("a flow class needs one weight per resource: " + std::to_string(weights.size()) + " weights for " +
         std::to_string(path.size()) + " resources");
  }
  for (const double w : weights) {
    if (!(w > 0) || !std::isfinite(w)) fail("flow class weights must be finite and > 0, got " + std::to_string(w));
  }
  return impl_->start(path, weights, amount, std::move(on_done), rate_cap);
}

FlowId FairShare::Impl::start(std::span<const ResourceId> path, std::span<const double> weights, double amount,
                              Callback on_done, double rate_cap) {
  Impl& s = *this;
  if (!(amount >= 0) || !std::isfinite(amount)) fail("flow amount must be finite and >= 0");
  if (!(rate_cap > 0)) fail("flow rate cap must be > 0");
  bool limited = rate_cap != kNoCap;
  for (std::size_t k = 0; k < path.size(); ++k) {
    if (path[k] >= s.links.size()) fail("unknown resource " + std::to_string(path[k]));
    if (std::find(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(k), path[k]) !=
        path.begin() + static_cast<std::ptrdiff_t>(k)) {
      fail("resource " + std::to_string(path[k]) + " appears twice in a flow's path");
    }
    limited = limited || s.links[path[k]].finite();
  }
  if (!limited) fail("flow crosses only infinite resources and has no rate cap");
  if (path.size() > Impl::kMaxPath) fail("a path of more than " + std::to_string(Impl::kMaxPath) + " resources");

  const std::uint32_t slot = s.new_slot();
  const Time now = s.sim.now();
  Flow& f = s.flows[slot];
  f.pos.clear();
  f.group = Impl::kNoGroup;
  f.joining = Impl::kNoGroup;
  f.on_done = std::move(on_done);
  FlowHot& h = s.hot[slot];
  h = Impl::FlowHot{};
  h.cap = rate_cap;
  s.set_path(slot, path);
  // One weight everywhere (1 for a plain flow) lives in the hot record; only differing ones in Flow.
  const bool uniform = std::all_of(weights.begin(), weights.end(), [&](double w) { return w == weights[0]; });
  h.weight = weights.empty() ? 1.0 : uniform ? weights[0] : Impl::kMixedWeights;
  if (h.weight == Impl::kMixedWeights) {
    f.weights.assign(weights.begin(), weights.end());
  } else {
    f.weights.clear();
  }
  FlowProgress& p = s.progress[slot];
  p.amount = amount;
  p.remaining = amount;
  p.updated_at = now;
  p.seq = s.next_seq++;
  f.start = now;
  f.live = true;
  ++s.live_count;

  if (amount == 0) {  // nothing to carry: completes at this instant, through the wake-up event
    h.solved = true;
    s.due.set(slot, static_cast<DueHeap::Key>(now.picoseconds()), p.seq);
    s.request_wake();
    return s.id_of(slot);
  }
  for (std::size_t k = 0; k < path.size(); ++k) {
    const ResourceId r = path[k];
    Link& l = s.links[r];
    if (s.keep_stats) {
      s.account(l, now);
      if (l.flows.empty()) l.busy_since = now;
    }
    f.pos.push_back(static_cast<std::uint32_t>(l.flows.size()));
    l.flows.push_back(slot);
    l.weights.push_back(s.weight(slot, k));
    s.seeds.push_back(r);
  }
  s.arrivals.push_back(slot);
  s.mark_dirty();
  return s.id_of(slot);
}

bool FairShare::cancel_flow(FlowId id) {
  const std::uint32_t slot = impl_->find_slot(id);
  if (slot == UINT32_MAX) return false;
  impl_->detach(slot);
  impl_->request_wake();
  return true;
}

void FairShare::settle() {
  impl_->settle();
  impl_->request_wake();
}

double FairShare::rate(FlowId id) const {
  const std::uint32_t slot = impl_->slot_of(id);
  const std::uint32_t group = impl_->flows[slot].group;
  return group == Impl::kNoGroup ? impl_->hot[slot].rate : impl_->groups[group].rate;
}

double FairShare::remaining(FlowId id) const {
  const std::uint32_t slot = impl_->slot_of(id);
  if (impl_->flows[slot].group != Impl::kNoGroup) return std::max(0.0, impl_->member_remaining(slot, impl_->sim.now()));
  return std::max(0.0, impl_->remaining_at(slot, impl_->sim.now()));
}

Time FairShare::start_time(FlowId id) const { return impl_->flows[impl_->slot_of(id)].start; }
bool FairShare::active(FlowId id) const { return impl_->find_slot(id) != UINT32_MAX; }
std::size_t FairShare::active_flows() const { return impl_->live_count; }
std::size_t FairShare::resource_count() const { return impl_->links.size(); }
std::uint64_t FairShare::solves() const { return impl_->solve_count; }
std::uint64_t FairShare::refilled_flows() const { return impl_->refilled; }

double FairShare::capacity(ResourceId id) const {
  if (id >= impl_->links.size()) fail("unknown resource " + std::to_string(id));
  return impl_->links[id].capacity;
}

void FairShare::keep_resource_stats(bool keep) {
  if (keep == impl_->keep_stats) return;
  if (impl_->live_count > 0) throw std::logic_error("FairShare: resource statistics switched with flows active");
  impl_->keep_stats = keep;
  // Turned back on: accounting restarts now, from idle resources.
  for (Impl::Link& l : impl_->links) {
    l.load = 0;
    l.accounted_at = impl_->sim.now();
  }
}

void FairShare::group_equal_shares(bool group, std::size_t min_flows) {
  if (group == impl_->grouping && min_flows == impl_->group_min_flows) return;
  if (impl_->live_count > 0) throw std::logic_error("FairShare: equal-share grouping switched with flows active");
  impl_->grouping = group;
  impl_->group_min_flows = std::max<std::size_t>(min_flows, 1);
}

ResourceStats FairShare::stats(ResourceId id) const {
  if (id >= impl_->links.size()) fail("unknown resource " + std::to_string(id));
  if (!impl_->keep_stats) throw std::logic_error("FairShare: resource statistics are off (keep_resource_stats)");
  const Impl::Link& l = impl_->links[id];
  const Time now = impl_->sim.now();
  ResourceStats s;
  s.capacity = l.capacity;
  s.carried = l.carried + l.load * (now - l.accounted_at).to_seconds();
  s.busy_time = l.busy_total + (l.flows.empty() ? Time::zero() : now - l.busy_since);
  s.utilisation = l.finite() ? l.load / l.capacity : 0.0;
  s.active_flows = l.flows.size();
  return s;
}

const std::string& FairShare::name(ResourceId id) const {
  if (id >= impl_->links.size()) fail("unknown resource " + std::to_string(id));
  auto [it, added] = impl_->named.try_emplace(id);
  if (added) {
    const std::size_t begin = id == 0 ? 0 : impl_->name_end[id - 1];
    it->second = impl_->names.substr(begin, impl_->name_end[id] - begin);
  }
  return it->second;
}

}  // namespace hpcsim

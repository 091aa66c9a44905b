#pragma once
// The FairShareBaseline solver as it was before the re-fill was made cheaper (sim-core/src/fair_share*.{h,cpp} at
// that commit, renamed FairShareBaseline and BaselineDueHeap in hpcsim::baseline, code unchanged): the
// exactness test (fair_share_exact_test.cpp) runs random flow sets on both and requires equal doubles
// and picoseconds. Included by that one test only; never by the library.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim-core/fair_share.h"
#include "sim-core/inline_function.h"
#include "sim-core/simulator.h"
#include "sim-core/time.h"

namespace hpcsim::baseline {

class FairShareBaseline {
 public:
  using Callback = InlineFunction<void(FlowId), 48>;
  static constexpr double kNoCap = std::numeric_limits<double>::infinity();

  explicit FairShareBaseline(Simulator& sim);
  ~FairShareBaseline();
  FairShareBaseline(const FairShareBaseline&) = delete;
  FairShareBaseline& operator=(const FairShareBaseline&) = delete;

  // capacity must be > 0 (may be +infinity); otherwise std::invalid_argument.
  ResourceId add_resource(double capacity, std::string name = {});

  // Starts a flow of `amount` units over `path` now; on_done(id) runs when the last unit arrives.
  // Throws std::invalid_argument for a negative or non-finite amount, a non-positive rate cap, an
  // unknown or repeated resource, or a flow that nothing limits (only infinite resources, no cap).
  FlowId start_flow(std::span<const ResourceId> path, double amount, Callback on_done,
                    double rate_cap = kNoCap);
  // Starts a class of flows that max-min fairness gives equal rates (identical paths, amounts and caps;
  // or flows that a symmetry of the whole system maps onto each other) as one flow that loads resource
  // path[k] with weights[k] times its rate: a class of n identical flows passes n for every resource, and
  // a representative of n symmetric flows passes, per resource, how many members cross it (n / orbit size
  // on the quotient). Re-filled as one flow, so 16,000 flows in 100 classes cost what 100 flows cost.
  // rate() and remaining() are one member's; on_done runs once, when the members end (together).
  // Errors as start_flow, and for weights not one per resource, or not finite and > 0.
  FlowId start_flow_class(std::span<const ResourceId> path, std::span<const double> weights, double amount,
                          Callback on_done, double rate_cap = kNoCap);
  // Stops a flow without calling its callback; false if it is unknown or already finished.
  bool cancel_flow(FlowId id);

  // Applies pending changes now instead of waiting for the zero-delay event (rates are otherwise
  // those of the last solve: a flow started at this instant reports rate 0 until then).
  void settle();

  // Per-flow queries; an unknown or finished flow throws std::invalid_argument.
  double rate(FlowId id) const;
  double remaining(FlowId id) const;
  Time start_time(FlowId id) const;
  bool active(FlowId id) const;

  std::size_t active_flows() const;
  std::size_t resource_count() const;
  // Accounting up to the simulator's current time; an unknown id throws std::invalid_argument.
  ResourceStats stats(ResourceId id) const;
  double capacity(ResourceId id) const;  // stats(id).capacity without the accounting
  const std::string& name(ResourceId id) const;
  // Number of re-solves so far (coalesced changes count once), and the flows they re-filled in total:
  // the cost measure of the incremental solver.
  std::uint64_t solves() const;
  std::uint64_t refilled_flows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};


class BaselineDueHeap {
 public:
  __extension__ using Key = unsigned __int128;  // picoseconds, non-negative

  struct Entry {
    std::uint64_t due_low;
    std::uint32_t due_high;
    std::uint32_t slot;
    Key due_ps() const { return (static_cast<Key>(due_high) << 64) | due_low; }
    void set_due(Key due) {
      due_low = static_cast<std::uint64_t>(due);
      due_high = static_cast<std::uint32_t>(due >> 64);
    }
  };

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Entry& top() const { return heap_.front(); }
  bool contains(std::uint32_t slot) const { return slot < pos_.size() && pos_[slot] != kAbsent; }

  // Inserts the slot or moves it to its new key.
  void set(std::uint32_t slot, Key due_ps, std::uint64_t seq) {
    const bool present = place_key(slot, due_ps, seq);
    restore(pos_[slot], present);
  }

  // Records a new key to apply at commit(); the heap order is undefined in between (set, erase and
  // top must not be called before commit).
  void stage(std::uint32_t slot, Key due_ps, std::uint64_t seq) {
    Entry e{0, 0, slot};
    e.set_due(due_ps);
    staged_.push_back({e, seq});
  }
  void commit() {
    // A sift costs about log4(n) levels of 4 comparisons; a rebuild about 2 comparisons per entry.
    if (staged_.size() * 8 < heap_.size() + staged_.size()) {
      for (const Staged& s : staged_) set(s.entry.slot, s.entry.due_ps(), s.seq);
    } else {
      for (const Staged& s : staged_) place_key(s.entry.slot, s.entry.due_ps(), s.seq);
      const auto n = static_cast<std::uint32_t>(heap_.size());
      for (std::uint32_t i = n > 1 ? (n - 2) / 4 + 1 : 0; i-- > 0;) down(i);
    }
    staged_.clear();
  }

  void erase(std::uint32_t slot) {
    if (!contains(slot)) return;
    const std::uint32_t i = pos_[slot];
    pos_[slot] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    heap_[i] = last;
    pos_[last.slot] = i;
    restore(i, true);
  }

 private:
  static constexpr std::uint32_t kAbsent = UINT32_MAX;
  struct Staged {
    Entry entry;
    std::uint64_t seq;
  };

  bool earlier(const Entry& a, const Entry& b) const {
    const Key ka = a.due_ps(), kb = b.due_ps();
    return ka < kb || (ka == kb && seq_[a.slot] < seq_[b.slot]);
  }
  // Writes the key without restoring the order; returns whether the slot was already present.
  bool place_key(std::uint32_t slot, Key due_ps, std::uint64_t seq) {
    if (slot >= pos_.size()) {
      pos_.resize(slot + 1, kAbsent);
      seq_.resize(slot + 1, 0);
    }
    seq_[slot] = seq;
    if (pos_[slot] == kAbsent) {
      pos_[slot] = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back({0, 0, slot});
      heap_.back().set_due(due_ps);
      return false;
    }
    heap_[pos_[slot]].set_due(due_ps);
    return true;
  }
  void restore(std::uint32_t i, bool may_go_down) {
    if (i > 0 && earlier(heap_[i], heap_[(i - 1) / 4])) {
      up(i);
    } else if (may_go_down) {
      down(i);
    }
  }
  void put(std::uint32_t i, const Entry& e) {
    heap_[i] = e;
    pos_[e.slot] = i;
  }
  void up(std::uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 4;
      if (!earlier(e, heap_[parent])) break;
      put(i, heap_[parent]);
      i = parent;
    }
    put(i, e);
  }
  void down(std::uint32_t i) {
    const Entry e = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    while (true) {
      const std::uint32_t first = 4 * i + 1;
      if (first >= n) break;
      std::uint32_t best = first;
      const std::uint32_t end = first + 4 < n ? first + 4 : n;
      for (std::uint32_t c = first + 1; c < end; ++c) {
        if (earlier(heap_[c], heap_[best])) best = c;
      }
      if (!earlier(heap_[best], e)) break;
      put(i, heap_[best]);
      i = best;
    }
    put(i, e);
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> pos_;   // heap index of each slot, or kAbsent
  std::vector<std::uint64_t> seq_;   // arrival sequence of each slot, the tie-breaker
  std::vector<Staged> staged_;
};



struct FairShareBaseline::Impl {
  struct Link {
    // Fields a re-solve reads first, together at the front of the record.
    double capacity = 0;
    std::uint64_t stamp = 0;  // re-solve scratch below is valid while this equals the solve epoch
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
    std::uint64_t stamp = 0;  // re-solve epoch that last visited the flow
    std::uint32_t path_len = 0;
    bool solved = false;  // has a rate from a solve (false right after start_flow)
    bool frozen = false;  // re-solve scratch
    bool weighted = false;  // a flow class: Flow::weights holds its weight on each resource
    ResourceId inline_path[kInlinePath] = {};
  };
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
    std::vector<double> weights;        // a flow class's weight per resource (empty: 1 each)
    Callback on_done;
    Time start;
    std::uint32_t generation = 1;
    bool live = false;
  };

  explicit Impl(Simulator& s) : sim(s) {}

  // fair_share.cpp: bookkeeping, events.
  std::uint32_t slot_of(FlowId id) const;  // throws for unknown ids
  std::uint32_t find_slot(FlowId id) const;  // UINT32_MAX for unknown ids
  FlowId id_of(std::uint32_t slot) const;
  void account(Link& l, Time now);
  void detach(std::uint32_t slot);  // removes a live flow from links, heap and slot table
  void mark_dirty();
  void request_wake();
  void on_wake();
  bool is_done(std::uint32_t slot, Time now) const;
  void set_rate(std::uint32_t slot, double rate, Time now);  // stages the due time: due.commit() after
  Time due_time(std::uint32_t slot) const;
  static Time far_due_time(Time from, double rounded_ps);
  void set_path(std::uint32_t slot, std::span<const ResourceId> path);
  std::span<const ResourceId> path(std::uint32_t slot) const {
    const FlowHot& h = hot[slot];
    if (h.path_len <= kInlinePath) return {h.inline_path, h.path_len};
    return {flows[slot].long_path.data(), h.path_len};
  }

  // The load the flow puts on the k-th resource of its path per unit of its rate.
  double weight(std::uint32_t slot, std::size_t k) const {
    return hot[slot].weighted ? flows[slot].weights[k] : 1.0;
  }
  FlowId start(std::span<const ResourceId> path, std::span<const double> weights, double amount, Callback on_done,
               double rate_cap);

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
  BaselineDueHeap due;
  std::size_t live_count = 0;
  std::uint64_t next_seq = 0;
  std::uint64_t solve_count = 0;
  std::uint64_t refilled = 0;

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
  std::uint64_t epoch = 0;
  std::vector<std::uint32_t> region_flows;
  std::vector<ResourceId> region_links;
  std::vector<std::pair<double, double>> rates_scratch;  // (rate, weight)
  struct Level {
    double level;
    std::uint64_t key;  // resource id, or kCapTag | flow slot
  };
  std::vector<Level> levels;      // links' fill levels (a heap)
  std::vector<Level> cap_levels;  // region flows' rate caps (a heap once one is due)
};



namespace {
// A flow whose remaining amount is below this fraction of its size is complete (floating-point residue).
constexpr double kDoneFraction = 1e-9;
// Durations within this relative distance above a whole picosecond round down to it, so exact hand
// results (3 s, not 3 s + 1 ps) survive the division; anything larger rounds up, never finishing early.
constexpr double kSnapFraction = 1e-14;

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("FairShareBaseline: " + what); }
}  // namespace

// ---- Impl helpers ----------------------------------------------------------------------------------

std::uint32_t FairShareBaseline::Impl::find_slot(FlowId id) const {
  const auto slot = static_cast<std::uint32_t>(id & 0xffffffffu);
  const auto generation = static_cast<std::uint32_t>(id >> 32);
  if (slot >= flows.size()) return UINT32_MAX;
  const Flow& f = flows[slot];
  return (f.live && f.generation == generation) ? slot : UINT32_MAX;
}

std::uint32_t FairShareBaseline::Impl::slot_of(FlowId id) const {
  const std::uint32_t slot = find_slot(id);
  if (slot == UINT32_MAX) fail("unknown or finished flow " + std::to_string(id));
  return slot;
}

FlowId FairShareBaseline::Impl::id_of(std::uint32_t slot) const {
  return (static_cast<FlowId>(flows[slot].generation) << 32) | slot;
}

void FairShareBaseline::Impl::account(Link& l, Time now) {
  if (l.accounted_at == now) return;  // a re-solve touches a link once per flow: skip the repeats
  l.carried += l.load * (now - l.accounted_at).to_seconds();
  l.accounted_at = now;
}

bool FairShareBaseline::Impl::is_done(std::uint32_t slot, Time now) const {
  const FlowProgress& f = progress[slot];
  const double left = f.remaining - hot[slot].rate * (now - f.updated_at).to_seconds();
  return left <= kDoneFraction * f.amount;
}

Time FairShareBaseline::Impl::due_time(std::uint32_t slot) const {
  const FlowProgress& f = progress[slot];
  const double rate = hot[slot].rate;
  if (f.remaining <= kDoneFraction * f.amount) return f.updated_at;
  if (!(rate > 0)) return Time::max();
  const double ps = f.remaining / rate * 1e12;
  const double rounded = std::ceil(ps * (1.0 - kSnapFraction));
  if (rounded < 9.2e18) [[likely]] return f.updated_at + Time::ps(static_cast<std::int64_t>(rounded));
  return far_due_time(f.updated_at, rounded);
}

// A flow that ends 2^63 ps (106 days) or more from now: exact 128-bit arithmetic, "never" past the end of
// time. Out of line, so the common case above stays small enough to inline.
[[gnu::noinline]] Time FairShareBaseline::Impl::far_due_time(Time from, double rounded_ps) {
  if (rounded_ps >= (Time::max() - from).to_seconds() * 1e12) return Time::max();
  return from + Time::ps_exact(static_cast<Time::Rep>(rounded_ps));
}

void FairShareBaseline::Impl::set_rate(std::uint32_t slot, double new_rate, Time now) {
  FlowProgress& f = progress[slot];
  FlowHot& h = hot[slot];
  f.remaining -= h.rate * (now - f.updated_at).to_seconds();
  f.updated_at = now;
  const std::span<const ResourceId> p = path(slot);
  for (std::size_t k = 0; k < p.size(); ++k) {
    Link& l = links[p[k]];
    account(l, now);
    l.load += (new_rate - h.rate) * weight(slot, k);
  }
  h.rate = new_rate;
  h.solved = true;
  due.stage(slot, static_cast<BaselineDueHeap::Key>(due_time(slot).picoseconds()), f.seq);  // settle() commits the batch
}

void FairShareBaseline::Impl::set_path(std::uint32_t slot, std::span<const ResourceId> p) {
  FlowHot& h = hot[slot];
  h.path_len = static_cast<std::uint32_t>(p.size());
  if (p.size() <= kInlinePath) {
    std::copy(p.begin(), p.end(), h.inline_path);
  } else {
    flows[slot].long_path.assign(p.begin(), p.end());
  }
}

void FairShareBaseline::Impl::detach(std::uint32_t slot) {
  Flow& f = flows[slot];
  const std::span<const ResourceId> f_path = path(slot);
  const double rate = hot[slot].rate;
  const Time now = sim.now();
  if (hot[slot].solved && !f.pos.empty()) restart_level = std::min(restart_level, rate);
  for (std::size_t k = 0; k < f.pos.size(); ++k) {
    const ResourceId r = f_path[k];
    Link& l = links[r];
    account(l, now);
    l.load -= rate * weight(slot, k);
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
    if (l.flows.empty()) {
      l.load = 0;  // drop accumulated rounding
      l.busy_total += now - l.busy_since;
    }
    seeds.push_back(r);
  }
  const bool had_links = !f.pos.empty();
  due.erase(slot);
  f.live = false;
  f.on_done.reset();
  ++f.generation;
  free_slots.push_back(slot);
  --live_count;
  if (had_links) mark_dirty();
}

void FairShareBaseline::Impl::mark_dirty() {
  dirty = true;
  request_wake();
}

void FairShareBaseline::Impl::request_wake() {
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

void FairShareBaseline::Impl::on_wake() {
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
      const std::uint32_t slot = due.top().slot;
      Flow& f = flows[slot];
      if (due.top().due_ps() > static_cast<BaselineDueHeap::Key>(now.picoseconds()) && !is_done(slot, now)) break;
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

FairShareBaseline::FairShareBaseline(Simulator& sim) : impl_(std::make_unique<Impl>(sim)) {}
FairShareBaseline::~FairShareBaseline() {
  if (impl_->sim.is_pending(impl_->wake)) impl_->sim.cancel(impl_->wake);
}

ResourceId FairShareBaseline::add_resource(double capacity, std::string name) {
  if (!(capacity > 0)) fail("resource capacity must be > 0, got " + std::to_string(capacity));
  Impl::Link l;
  l.capacity = capacity;
  impl_->names += name;
  impl_->name_end.push_back(impl_->names.size());
  l.accounted_at = impl_->sim.now();
  impl_->links.push_back(std::move(l));
  return static_cast<ResourceId>(impl_->links.size() - 1);
}

FlowId FairShareBaseline::start_flow(std::span<const ResourceId> path, double amount, Callback on_done,
                             double rate_cap) {
  return impl_->start(path, {}, amount, std::move(on_done), rate_cap);
}

FlowId FairShareBaseline::start_flow_class(std::span<const ResourceId> path, std::span<const double> weights, double amount,
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

FlowId FairShareBaseline::Impl::start(std::span<const ResourceId> path, std::span<const double> weights, double amount,
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

  std::uint32_t slot;
  if (!s.free_slots.empty()) {
    slot = s.free_slots.back();
    s.free_slots.pop_back();
  } else {
    s.flows.emplace_back();
    s.hot.emplace_back();
    s.progress.emplace_back();
    slot = static_cast<std::uint32_t>(s.flows.size() - 1);
  }
  const Time now = s.sim.now();
  Flow& f = s.flows[slot];
  f.pos.clear();
  f.on_done = std::move(on_done);
  FlowHot& h = s.hot[slot];
  h = Impl::FlowHot{};
  h.cap = rate_cap;
  s.set_path(slot, path);
  // Unit weights everywhere are a plain flow: keep it on the unweighted path of the solver.
  h.weighted = std::any_of(weights.begin(), weights.end(), [](double w) { return w != 1.0; });
  if (h.weighted) {
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
    s.due.set(slot, static_cast<BaselineDueHeap::Key>(now.picoseconds()), p.seq);
    s.request_wake();
    return s.id_of(slot);
  }
  for (std::size_t k = 0; k < path.size(); ++k) {
    const ResourceId r = path[k];
    Link& l = s.links[r];
    s.account(l, now);
    if (l.flows.empty()) l.busy_since = now;
    f.pos.push_back(static_cast<std::uint32_t>(l.flows.size()));
    l.flows.push_back(slot);
    l.weights.push_back(s.weight(slot, k));
    s.seeds.push_back(r);
  }
  s.arrivals.push_back(slot);
  s.mark_dirty();
  return s.id_of(slot);
}

bool FairShareBaseline::cancel_flow(FlowId id) {
  const std::uint32_t slot = impl_->find_slot(id);
  if (slot == UINT32_MAX) return false;
  impl_->detach(slot);
  impl_->request_wake();
  return true;
}

void FairShareBaseline::settle() {
  impl_->settle();
  impl_->request_wake();
}

double FairShareBaseline::rate(FlowId id) const { return impl_->hot[impl_->slot_of(id)].rate; }

double FairShareBaseline::remaining(FlowId id) const {
  const std::uint32_t slot = impl_->slot_of(id);
  const Impl::FlowProgress& f = impl_->progress[slot];
  const double left = f.remaining - impl_->hot[slot].rate * (impl_->sim.now() - f.updated_at).to_seconds();
  return std::max(0.0, left);
}

Time FairShareBaseline::start_time(FlowId id) const { return impl_->flows[impl_->slot_of(id)].start; }
bool FairShareBaseline::active(FlowId id) const { return impl_->find_slot(id) != UINT32_MAX; }
std::size_t FairShareBaseline::active_flows() const { return impl_->live_count; }
std::size_t FairShareBaseline::resource_count() const { return impl_->links.size(); }
std::uint64_t FairShareBaseline::solves() const { return impl_->solve_count; }
std::uint64_t FairShareBaseline::refilled_flows() const { return impl_->refilled; }

double FairShareBaseline::capacity(ResourceId id) const {
  if (id >= impl_->links.size()) fail("unknown resource " + std::to_string(id));
  return impl_->links[id].capacity;
}

ResourceStats FairShareBaseline::stats(ResourceId id) const {
  if (id >= impl_->links.size()) fail("unknown resource " + std::to_string(id));
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

const std::string& FairShareBaseline::name(ResourceId id) const {
  if (id >= impl_->links.size()) fail("unknown resource " + std::to_string(id));
  auto [it, added] = impl_->named.try_emplace(id);
  if (added) {
    const std::size_t begin = id == 0 ? 0 : impl_->name_end[id - 1];
    it->second = impl_->names.substr(begin, impl_->name_end[id] - begin);
  }
  return it->second;
}



namespace {
constexpr std::uint64_t kCapTag = std::uint64_t{1} << 32;
// Flows this close below lambda are re-solved too: including extra flows is always correct and
// protects against rounding in lambda itself.
constexpr double kThresholdSlack = 1e-9;
// Passes of the sort-free arrival bound before it falls back to sorting (random churn needs 2-4).
constexpr int kBoundPasses = 8;
}  // namespace

double FairShareBaseline::Impl::arrival_bound(const Link& l, double arrivals_here) {
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

void FairShareBaseline::Impl::settle() {
  if (!dirty) return;
  dirty = false;
  ++solve_count;
  const Time now = sim.now();

  // Drop arrivals that were cancelled (or whose slot was reused) before this solve, and duplicates.
  ++epoch;
  std::size_t kept = 0;
  for (const std::uint32_t slot : arrivals) {
    FlowHot& h = hot[slot];
    if (!flows[slot].live || h.solved || h.stamp == epoch) continue;
    h.stamp = epoch;
    arrivals[kept++] = slot;
  }
  arrivals.resize(kept);

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
  for (const std::uint32_t slot : region_flows) {
    const FlowHot& h = hot[slot];
    if (!h.solved || h.new_rate != h.rate) set_rate(slot, h.new_rate, now);
  }
  due.commit();
  arrivals.clear();
  seeds.clear();
  restart_level = std::numeric_limits<double>::infinity();
}

void FairShareBaseline::Impl::collect_region(double threshold) {
  ++epoch;
  region_flows.clear();
  region_links.clear();
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
    hot[slot].stamp = epoch;
    hot[slot].frozen = false;
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
          continue;
        }
        join(slot);
      }
      ++l.unfrozen;
      l.unfrozen_weight += w;
    }
  }
}

void FairShareBaseline::Impl::fill_region() {
  // Min-heap on (level, key): equal levels resolve by id, so the order never depends on history.
  auto later = [](const Level& a, const Level& b) {
    return a.level > b.level || (a.level == b.level && a.key > b.key);
  };
  levels.clear();
  for (const ResourceId r : region_links) {
    const Link& l = links[r];
    if (l.unfrozen > 0) levels.push_back({std::max(l.residual, 0.0) / l.unfrozen_weight, r});
  }
  std::make_heap(levels.begin(), levels.end(), later);
  // Caps are taken in the same (level, key) order from their own heap, merged with the links' one. It is
  // built only when a cap is due first (until then a scan finds the least): in a solve that a shared
  // link settles, no cap is ever taken.
  cap_levels.clear();
  std::size_t least_cap = 0;
  for (const std::uint32_t slot : region_flows) {
    if (hot[slot].cap == kNoCap) continue;
    cap_levels.push_back({hot[slot].cap, kCapTag | slot});
    if (later(cap_levels[least_cap], cap_levels.back())) least_cap = cap_levels.size() - 1;
  }
  bool cap_heap = false;
  auto next = [&]() {
    const bool cap_first =
        !cap_levels.empty() &&
        (levels.empty() || later(levels.front(), cap_heap ? cap_levels.front() : cap_levels[least_cap]));
    std::vector<Level>& from = cap_first ? cap_levels : levels;
    if (cap_first && !cap_heap) {
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
  while (open > 0 && !(levels.empty() && cap_levels.empty())) {
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
    for (const std::uint32_t slot : l.flows) {
      if (hot[slot].stamp == epoch && !hot[slot].frozen) freeze(slot, level);
    }
  }
  // Every region flow crosses a finite link or has a cap (start_flow checks), so all are frozen now.
}



}  // namespace hpcsim::baseline

#include "sim-core/simulator.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "radix_queue.h"

namespace hpcsim {


Simulator::Simulator() : queue_(std::make_unique<detail::RadixQueue>()) { reserve(1024); }
Simulator::~Simulator() = default;

void Simulator::reserve(std::size_t events) {
  queue_->reserve(events);
  slots_.reserve(events);
  free_slots_.reserve(events);
}

std::size_t Simulator::memory_bytes() const {
  return queue_->capacity_bytes() + slots_.capacity() * sizeof(Slot) +
         free_slots_.capacity() * sizeof(std::uint32_t) + far_.capacity() * sizeof(FarEvent);
}

void Simulator::route(const FarEvent& e) {
  const Time::Rep offset = (e.time - epoch_).picoseconds();
  if (offset < kEpochSpan) {
    queue_->push(detail::QueueEntry{static_cast<std::uint64_t>(offset), e.slot, e.generation});
  } else {
    far_.push_back(e);
  }
}

void Simulator::reset_epoch(Time epoch) {
  // Every pending event in (time, insertion) order: the queue's in pop order, then the far ones (all
  // later than the queue's) in insertion order. Routing them again keeps that order. A rare path: the
  // clock jumped past 2^64 ps (213 days) with nothing in between.
  std::vector<FarEvent> pending;
  while (!queue_->empty()) {
    const detail::QueueEntry e = queue_->pop([](const detail::QueueEntry&) {});
    pending.push_back(FarEvent{epoch_ + Time::ps_unsigned(e.time), e.slot, e.generation});
  }
  pending.insert(pending.end(), far_.begin(), far_.end());
  far_.clear();
  epoch_ = epoch;
  queue_->rebase();
  for (const FarEvent& e : pending) route(e);
}

EventId Simulator::schedule_at(Time t, Callback cb) {
  // Common case: t within 64 bits of picoseconds after the epoch (one unsigned compare also rejects t
  // before the epoch), not before now, not past the end of time; anything else is checked first.
  const Time::Rep offset = (t - epoch_).picoseconds();
  const bool in_queue_range = static_cast<Time::UnsignedRep>(offset) < static_cast<Time::UnsignedRep>(kEpochSpan);
  if (!in_queue_range || t < now_ || t > Time::max() || !cb) {
    if (t < now_) {
      throw std::invalid_argument("schedule_at: time " + t.to_string() + " is before now (" + now_.to_string() + ")");
    }
    if (t > Time::max()) Time::ps_exact(t.picoseconds());  // throws TimeRangeError naming t
    if (!cb) throw std::invalid_argument("schedule_at: empty callback");
  }
  const std::uint32_t slot = acquire_slot();
  Slot& s = slots_[slot];
  s.callback = std::move(cb);
  ++live_;
  if (in_queue_range) {
    queue_->push(detail::QueueEntry{static_cast<std::uint64_t>(offset), slot, s.generation});
  } else {
    if (t < epoch_) reset_epoch(t);  // only after a far jump whose first events were all cancelled
    route(FarEvent{t, slot, s.generation});
  }
  return EventId{slot, s.generation};
}

EventId Simulator::schedule_in(Time delay, Callback cb) {
  if (delay < Time::zero()) throw std::invalid_argument("schedule_in: negative delay");
  return schedule_at(now_ + delay, std::move(cb));
}

bool Simulator::is_pending(EventId id) const {
  return id.slot < slots_.size() && slots_[id.slot].generation == id.generation &&
         static_cast<bool>(slots_[id.slot].callback);
}

bool Simulator::cancel(EventId id) {
  if (!is_pending(id)) return false;
  // The queue entry stays behind; its generation no longer matches, so step() drops it.
  release_slot(id.slot);
  return true;
}

std::uint32_t Simulator::acquire_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void Simulator::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.callback.reset();
  ++s.generation;
  --live_;
  free_slots_.push_back(slot);
}

bool Simulator::step(Time limit) {
  while (true) {
    if (queue_->empty()) {
      if (far_.empty()) return false;
      Time earliest = Time::max();
      for (const FarEvent& e : far_) earliest = std::min(earliest, e.time);
      if (earliest > limit) return false;
      reset_epoch(earliest);
    }
    // The limit as an offset from the epoch: below it (never, since limit >= now_ in practice) nothing
    // runs; beyond 64 bits everything queued does.
    const Time::Rep limit_offset = (limit - epoch_).picoseconds();
    if (limit_offset < 0) return false;
    if (limit_offset < kEpochSpan && queue_->min_time() > static_cast<std::uint64_t>(limit_offset)) return false;
    // Slots are read in queue order, i.e. randomly: prefetch those of the events that pop next.
    const detail::QueueEntry e = queue_->pop([this](const detail::QueueEntry& soon) {
      __builtin_prefetch(&slots_[soon.slot]);
    });
    Slot& s = slots_[e.slot];
    if (s.generation != e.generation || !s.callback) continue;  // cancelled: a stale entry
    now_ = epoch_ + Time::ps_unsigned(e.time);
    // Move the callback out first: it may schedule new events that reuse or grow the slot pool.
    Callback cb = std::move(s.callback);
    release_slot(e.slot);
    ++processed_;
    cb();
    if (processed_ >= watch_next_) {  // never without a watch: one comparison per event
      watch_next_ = processed_ + watch_every_;
      watch_();
    }
    return true;
  }
}

void Simulator::set_watch(std::uint64_t every, std::function<void()> watch) {
  if (watch && every == 0) throw std::invalid_argument("a simulator watch runs every 1 or more events");
  watch_ = std::move(watch);
  watch_every_ = every;
  watch_next_ = watch_ ? processed_ + every : UINT64_MAX;
}

void Simulator::run() {
  stopped_ = false;
  while (!stopped_ && step(Time::max())) {
  }
}

void Simulator::run_until(Time t) {
  stopped_ = false;
  while (!stopped_ && step(t)) {
  }
  if (!stopped_ && now_ < t) now_ = t;
}

}  // namespace hpcsim

#include "sim-core/simulator.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace hpcsim {

namespace {
constexpr std::size_t kArity = 4;  // a 4-ary heap: shallower than binary, children share a cache line
}

Simulator::Simulator() { reserve(1024); }

void Simulator::reserve(std::size_t events) {
  heap_.reserve(events);
  slots_.reserve(events);
  free_slots_.reserve(events);
}

EventId Simulator::schedule_at(Time t, Callback cb) {
  if (t < now_) {
    throw std::invalid_argument("schedule_at: time " + std::to_string(t.picoseconds()) +
                                " ps is before now (" + std::to_string(now_.picoseconds()) + " ps)");
  }
  if (!cb) throw std::invalid_argument("schedule_at: empty callback");
  const std::uint32_t slot = acquire_slot();
  Slot& s = slots_[slot];
  s.callback = std::move(cb);
  s.live = true;
  ++live_;
  push(Entry{t.picoseconds(), next_seq_++, slot, s.generation});
  return EventId{slot, s.generation};
}

EventId Simulator::schedule_in(Time delay, Callback cb) {
  if (delay < Time::zero()) throw std::invalid_argument("schedule_in: negative delay");
  return schedule_at(now_ + delay, std::move(cb));
}

bool Simulator::is_pending(EventId id) const {
  return id.slot < slots_.size() && slots_[id.slot].live && slots_[id.slot].generation == id.generation;
}

bool Simulator::cancel(EventId id) {
  if (!is_pending(id)) return false;
  // The heap entry stays behind; its generation no longer matches, so pop() skips it.
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
  s.live = false;
  ++s.generation;
  --live_;
  free_slots_.push_back(slot);
}

void Simulator::push(const Entry& e) {
  heap_.push_back(e);
  std::size_t i = heap_.size() - 1;
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!earlier(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

Simulator::Entry Simulator::pop() {
  const Entry top = heap_.front();
  const Entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  std::size_t i = 0;
  while (true) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t end = first + kArity < n ? first + kArity : n;
    for (std::size_t c = first + 1; c < end; ++c) {
      if (earlier(heap_[c], heap_[best])) best = c;
    }
    if (!earlier(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  return top;
}

bool Simulator::step(Time limit) {
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    Slot& s = slots_[top.slot];
    if (!s.live || s.generation != top.generation) {  // cancelled: drop the stale entry
      pop();
      continue;
    }
    if (top.time > limit.picoseconds()) return false;
    const Entry e = pop();
    now_ = Time::ps(e.time);
    // Move the callback out first: it may schedule new events that reuse or grow the slot pool.
    Callback cb = std::move(slots_[e.slot].callback);
    release_slot(e.slot);
    ++processed_;
    cb();
    return true;
  }
  return false;
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

#pragma once
// The discrete-event engine: a clock and a queue of callbacks ordered by (time, insertion order).
// Events at the same time run in the order they were scheduled, so every run is deterministic.
// Event records live in a pooled store and the queue is a radix heap over 64-bit picosecond offsets from
// an epoch (events 213 days or more ahead wait in a side list until the epoch moves up to them): no
// allocation per event once the pools have grown to the peak number of pending events.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim-core/inline_function.h"
#include "sim-core/time.h"

namespace hpcsim {

namespace detail {
class RadixQueue;
}

// Handle to a scheduled event; stale handles (event ran or was cancelled) are recognised safely.
struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class Simulator {
 public:
  using Callback = InlineFunction<void(), 48>;

  Simulator();
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Schedules cb at absolute time t; t earlier than now() throws std::invalid_argument.
  EventId schedule_at(Time t, Callback cb);
  // Schedules cb after a non-negative delay.
  EventId schedule_in(Time delay, Callback cb);
  // Cancels a pending event; returns false if it already ran, was cancelled, or is invalid.
  bool cancel(EventId id);
  bool is_pending(EventId id) const;

  // Runs until no event is pending (or stop() is called from inside an event).
  void run();
  // Runs every event with time <= t, then advances the clock to t (if the run was not stopped).
  void run_until(Time t);
  // Makes run()/run_until() return after the event that is executing now.
  void stop() { stopped_ = true; }

  Time now() const { return now_; }
  std::uint64_t events_processed() const { return processed_; }
  std::size_t pending() const { return live_; }
  // Calls `watch` after every `every` events (every >= 1) run by run()/run_until(), e.g. for a progress line
  // of a long simulation; it must not schedule events (the run is the same with or without it). An empty
  // function removes it.
  void set_watch(std::uint64_t every, std::function<void()> watch);
  // Pre-sizes the pools, e.g. for a benchmark that knows its peak pending count.
  void reserve(std::size_t events);
  // Bytes held by the event queue and the pool (capacity, not just what is in use).
  std::size_t memory_bytes() const;

 private:
  // One cache line per pooled event: the callback and the generation that tells stale handles apart.
  struct alignas(64) Slot {
    Callback callback;
    std::uint32_t generation = 0;
  };

  // An event at or beyond 2^64 ps after the epoch (213 days), waiting in insertion order until the queue
  // runs dry and the epoch moves up to it.
  struct FarEvent {
    Time time;
    std::uint32_t slot;
    std::uint32_t generation;
  };
  static constexpr Time::Rep kEpochSpan = Time::Rep{1} << 64;

  void route(const FarEvent& e);  // into the queue (as an offset from the epoch) or the far list
  void reset_epoch(Time epoch);   // epoch <= every pending event's time
  std::uint32_t acquire_slot();
  void release_slot(std::uint32_t slot);
  bool step(Time limit);  // runs the next live event if its time <= limit

  std::unique_ptr<detail::RadixQueue> queue_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<FarEvent> far_;
  Time epoch_ = Time::zero();  // queue keys are picoseconds since the epoch, in 64 bits; at or before every pending event
  Time now_ = Time::zero();
  std::uint64_t processed_ = 0;
  std::size_t live_ = 0;
  std::function<void()> watch_;
  std::uint64_t watch_every_ = 0;
  std::uint64_t watch_next_ = UINT64_MAX;  // the watch runs when processed_ reaches it (never without one)
  bool stopped_ = false;
};

}  // namespace hpcsim

#pragma once
// Monotone priority queue (a radix heap) for the event list. A discrete-event clock never goes back, so
// keys are at least the last key popped; each entry then moves between at most 64 buckets over its life
// and all work is sequential scans, which is far kinder to caches than a binary heap at a million entries.
// Buckets are FIFO and redistribution is stable, so equal keys pop in insertion order without a sequence
// number: this is what makes same-time events deterministic.
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace hpcsim::detail {

struct QueueEntry {
  std::uint64_t time;  // picoseconds since the simulator's epoch, never below the last popped time
  std::uint32_t slot;
  std::uint32_t generation;
};

class RadixQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity_bytes() const;

  void push(const QueueEntry& e);
  // Smallest key present (valid only when !empty()).
  std::uint64_t min_time() const;
  // Removes and returns the entry with the smallest key, earliest-pushed first among equals. When a
  // small bucket is spread out, touch(entry) is called for each of its entries: they pop next, so the
  // caller can prefetch what it will read then.
  template <class Touch>
  QueueEntry pop(Touch&& touch);
  void reserve(std::size_t n) { buckets_[0].reserve(n); }
  // Starts over from key 0 (a new epoch); the queue must be empty.
  void rebase();

 private:
  static constexpr int kBuckets = 65;
  static constexpr std::size_t kTouchLimit = 32;
  int bucket_of(std::uint64_t t) const { return t == last_ ? 0 : 64 - __builtin_clzll(t ^ last_); }
  int lowest_nonempty() const;

  std::array<std::vector<QueueEntry>, kBuckets> buckets_;
  std::array<std::uint64_t, kBuckets> bucket_min_{};
  std::size_t head0_ = 0;  // bucket 0 is consumed from the front
  std::uint64_t last_ = 0;
  std::size_t size_ = 0;
};

template <class Touch>
QueueEntry RadixQueue::pop(Touch&& touch) {
  auto& zero = buckets_[0];
  if (zero.size() == head0_) {
    zero.clear();
    head0_ = 0;
    const int j = lowest_nonempty();
    auto& from = buckets_[j];
    last_ = bucket_min_[j];
    const bool soon = from.size() <= kTouchLimit;
    // Every lower bucket is empty, so pushing in order keeps equal keys in insertion order.
    for (const QueueEntry& e : from) {
      const int b = bucket_of(e.time);
      auto& to = buckets_[b];
      if (to.empty() || e.time < bucket_min_[b]) bucket_min_[b] = e.time;
      to.push_back(e);
      if (soon) touch(e);
    }
    from.clear();
  }
  --size_;
  return zero[head0_++];
}

}  // namespace hpcsim::detail

#pragma once
// Monotone priority queue (a radix heap) for the event list. A discrete-event clock never goes back, so
// keys are at least the last key popped; each entry then moves between at most 96 buckets over its life
// and all work is sequential scans, which is far kinder to caches than a binary heap at a million entries.
// Buckets are FIFO and redistribution is stable, so equal keys pop in insertion order without a sequence
// number: this is what makes same-time events deterministic.
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace hpcsim::detail {

__extension__ using QueueKey = unsigned __int128;  // picoseconds since the start

// 24 bytes: the 96-bit key is split so that entries stay 8-byte aligned (an __int128 member would pad
// them to 32). Simulated time never exceeds 2^95 ps, so 32 high bits suffice.
struct QueueEntry {
  std::uint64_t time_low;
  std::uint32_t time_high;
  std::uint32_t slot;
  std::uint32_t generation;
  QueueKey time() const { return (static_cast<QueueKey>(time_high) << 64) | time_low; }
  static QueueEntry make(QueueKey time, std::uint32_t slot, std::uint32_t generation) {
    return {static_cast<std::uint64_t>(time), static_cast<std::uint32_t>(time >> 64), slot, generation};
  }
};

class RadixQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity_bytes() const;

  void push(const QueueEntry& e);
  // Smallest key present (valid only when !empty()).
  QueueKey min_time() const;
  // Removes and returns the entry with the smallest key, earliest-pushed first among equals. When a
  // small bucket is spread out, touch(entry) is called for each of its entries: they pop next, so the
  // caller can prefetch what it will read then.
  template <class Touch>
  QueueEntry pop(Touch&& touch);
  void reserve(std::size_t n) { buckets_[0].reserve(n); }

 private:
  static constexpr int kBuckets = 129;
  static constexpr std::size_t kTouchLimit = 32;
  int bucket_of(QueueKey t) const {
    const QueueKey x = t ^ last_;
    const auto high = static_cast<std::uint64_t>(x >> 64), low = static_cast<std::uint64_t>(x);
    if (high != 0) return 128 - __builtin_clzll(high);
    return low == 0 ? 0 : 64 - __builtin_clzll(low);
  }
  int lowest_nonempty() const;

  std::array<std::vector<QueueEntry>, kBuckets> buckets_;
  std::array<QueueKey, kBuckets> bucket_min_{};
  std::size_t head0_ = 0;  // bucket 0 is consumed from the front
  QueueKey last_ = 0;
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
      const QueueKey t = e.time();
      const int b = bucket_of(t);
      auto& to = buckets_[b];
      if (to.empty() || t < bucket_min_[b]) bucket_min_[b] = t;
      to.push_back(e);
      if (soon) touch(e);
    }
    from.clear();
  }
  --size_;
  return zero[head0_++];
}

}  // namespace hpcsim::detail

#pragma once
// Indexed binary min-heap of flow slots keyed by (completion time, arrival sequence): a rate change
// moves one entry in place instead of leaving stale copies behind.
#include <cstdint>
#include <vector>

namespace hpcsim {

class DueHeap {
 public:
  struct Entry {
    std::int64_t due_ps;
    std::uint64_t seq;
    std::uint32_t slot;
  };

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Entry& top() const { return heap_.front(); }
  bool contains(std::uint32_t slot) const { return slot < pos_.size() && pos_[slot] != kAbsent; }

  // Inserts the slot or moves it to its new key.
  void set(std::uint32_t slot, std::int64_t due_ps, std::uint64_t seq) {
    if (slot >= pos_.size()) pos_.resize(slot + 1, kAbsent);
    const Entry e{due_ps, seq, slot};
    if (pos_[slot] == kAbsent) {
      heap_.push_back(e);
      pos_[slot] = static_cast<std::uint32_t>(heap_.size() - 1);
      up(pos_[slot]);
      return;
    }
    const std::uint32_t i = pos_[slot];
    const bool moved_earlier = earlier(e, heap_[i]);
    heap_[i] = e;
    if (moved_earlier) {
      up(i);
    } else {
      down(i);
    }
  }

  void erase(std::uint32_t slot) {
    if (!contains(slot)) return;
    const std::uint32_t i = pos_[slot];
    pos_[slot] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    const bool moved_earlier = earlier(last, heap_[i]);
    heap_[i] = last;
    pos_[last.slot] = i;
    if (moved_earlier) {
      up(i);
    } else {
      down(i);
    }
  }

 private:
  static constexpr std::uint32_t kAbsent = UINT32_MAX;
  static bool earlier(const Entry& a, const Entry& b) {
    return a.due_ps < b.due_ps || (a.due_ps == b.due_ps && a.seq < b.seq);
  }
  void place(std::uint32_t i, const Entry& e) {
    heap_[i] = e;
    pos_[e.slot] = i;
  }
  void up(std::uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 2;
      if (!earlier(e, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, e);
  }
  void down(std::uint32_t i) {
    const Entry e = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    while (true) {
      std::uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && earlier(heap_[child + 1], heap_[child])) ++child;
      if (!earlier(heap_[child], e)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, e);
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> pos_;  // heap index of each slot, or kAbsent
};

}  // namespace hpcsim

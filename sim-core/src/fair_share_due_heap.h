#pragma once
// Indexed 4-ary min-heap of flow slots keyed by (completion time, arrival sequence): a rate change
// moves one entry in place instead of leaving stale copies behind. Entries are 16 bytes (a 96-bit time,
// enough for Time's range, with the sequence number in a side table, read only on equal times), so four
// children share one cache line.
// A re-solve that changes many keys at once stages them and rebuilds the heap in linear time when
// that is cheaper than sifting each one.
#include <cstdint>
#include <vector>

namespace hpcsim {

class DueHeap {
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
  [[gnu::always_inline]] bool place_key(std::uint32_t slot, Key due_ps, std::uint64_t seq) {
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

}  // namespace hpcsim

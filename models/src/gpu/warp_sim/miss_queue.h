#pragma once
// The completion cycles of an SM's outstanding L1 misses: how many are outstanding, the earliest, and
// dropping those done by a cycle. Misses mostly complete in the order they start, so the times are kept
// sorted in an array: a push walks back from the end past the few later ones, a pop advances the front
// (about 10 % faster on a memory-bound kernel than a min-heap, which reorders on every push and pop).
#include <algorithm>
#include <cstddef>
#include <vector>

namespace hpcsim::warp_sim_detail {

class MissQueue {
 public:
  std::size_t size() const { return times_.size() - front_; }
  bool empty() const { return size() == 0; }
  double top() const { return times_[front_]; }
  void push(double t) {
    times_.push_back(t);
    std::size_t i = times_.size() - 1;
    for (; i > front_ && times_[i - 1] > t; --i) times_[i] = times_[i - 1];
    times_[i] = t;
  }
  // Drops every time <= now.
  void pop_until(double now) {
    while (front_ < times_.size() && times_[front_] <= now) ++front_;
    if (front_ == times_.size()) {
      times_.clear();
      front_ = 0;
    } else if (front_ > 1024 && front_ * 2 > times_.size()) {
      times_.erase(times_.begin(), times_.begin() + static_cast<std::ptrdiff_t>(front_));
      front_ = 0;
    }
  }

 private:
  std::vector<double> times_;  // ascending from front_
  std::size_t front_ = 0;
};

}  // namespace hpcsim::warp_sim_detail

#pragma once
// The scans one warp scheduler skipped because they could only have found every candidate warp throttled:
// the miss registers were full and each candidate's next instruction was a global load. Such a scan raises
// the throttled-until time of each candidate whose operands are ready to `until` (the later of the LSU's
// free time and the earliest miss release); the skipped scans are numbered, and a warp settles the ones that
// applied to it when it next issues: the latest `until` among the scans numbered from when it became a
// candidate with its current instruction, at cycles its operands were ready by. Scans number and cycles both
// rise along the log, so those scans are a suffix of it, and the log keeps only the entries that are a
// suffix's maximum (each later `until` drops the earlier ones it is not below): adding is amortised O(1), a
// query a binary search.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace hpcsim::warp_sim_detail {

class ThrottleLog {
 public:
  // The number the next skipped scan gets.
  std::uint64_t next_scan() const { return scans_; }
  void add(double now, double until) {
    while (!kept_.empty() && kept_.back().until <= until) kept_.pop_back();
    kept_.push_back({scans_++, now, until});
  }
  // The latest `until` of the scans numbered >= first at cycles >= from; 0 when there is none (a warp's
  // throttled-until time is never negative, so 0 leaves the maximum it is taken into unchanged).
  double latest(std::uint64_t first, double from) const {
    const auto it = std::partition_point(kept_.begin(), kept_.end(),
                                         [&](const Entry& e) { return e.scan < first || e.now < from; });
    return it == kept_.end() ? 0 : it->until;
  }

 private:
  struct Entry {
    std::uint64_t scan;
    double now, until;
  };
  std::vector<Entry> kept_;  // scan and now ascending, until descending
  std::uint64_t scans_ = 0;
};

}  // namespace hpcsim::warp_sim_detail

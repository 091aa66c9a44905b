// Chunks flowing through a pipeline of positions; stages with the same set of busy positions move the
// same transfers and share a pattern, so a long steady state is one pattern.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "schedule_builders.h"

namespace hpcsim::schedules {

int chunk_count(double bytes, const ScheduleOptions& options) {
  const double wanted = std::ceil(bytes / options.chunk_bytes);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(options.max_chunks)));
}

CollectiveSchedule pipelined(int positions, int chunks, std::function<void(int, std::vector<Transfer>&)> at_position,
                             std::uint64_t transfers_per_stage) {
  std::map<std::pair<int, int>, int> pattern_of;
  std::vector<std::pair<int, int>> windows;  // busy positions [first, last] of each pattern
  std::vector<int> steps;
  for (int stage = 0; stage + 1 < positions + chunks; ++stage) {
    const std::pair<int, int> window{std::max(0, stage - chunks + 1), std::min(positions - 1, stage)};
    auto [it, added] = pattern_of.emplace(window, static_cast<int>(windows.size()));
    if (added) windows.push_back(window);
    steps.push_back(it->second);
  }
  auto generate = [windows, at_position = std::move(at_position)](int pattern, std::vector<Transfer>& out) {
    for (int p = windows[pattern].first; p <= windows[pattern].second; ++p) at_position(p, out);
  };
  return CollectiveSchedule(static_cast<int>(windows.size()), std::move(steps), std::move(generate),
                            transfers_per_stage);
}

}  // namespace hpcsim::schedules

// Reading the cache plateaus out of a pointer-chase sweep: medians over the footprints that sit well inside
// one level, so the rows at a transition (part hits, part misses) move no plateau.
#include "analysis/pointer_chase_plateaus.h"

#include <algorithm>
#include <vector>

namespace hpcsim {

namespace {

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

}  // namespace

LatencyPlateaus pointer_chase_plateaus(const DeviceMeasurements& sweep, double l1_bytes, double l2_bytes) {
  std::vector<double> l1, l2, hbm;
  for (const DeviceMeasurement& row : sweep.rows) {
    if (row.benchmark != "pointer-chase") continue;
    if (row.metric != "latency" || row.unit != "cycles") {
      throw device_row_error(sweep, row, "a sweep row is latency in cycles, not " + row.metric + " in " + row.unit);
    }
    const double footprint = static_cast<double>(device_int_param(sweep, row, "footprint_bytes", 1));
    if (footprint <= l1_bytes / 2) {
      l1.push_back(row.value);
    } else if (footprint >= 2 * l1_bytes && footprint <= l2_bytes / 2) {
      l2.push_back(row.value);
    } else if (footprint >= 4 * l2_bytes) {
      hbm.push_back(row.value);
    }
  }
  return {median(l1), median(l2), median(hbm)};
}

}  // namespace hpcsim

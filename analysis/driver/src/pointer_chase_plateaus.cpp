// Reading the cache plateaus out of a pointer-chase sweep: medians over the footprints that sit well inside
// one level, so the rows at a transition (part hits, part misses) move no plateau.
#include "driver/pointer_chase_plateaus.h"

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

std::optional<std::string> pointer_chase_level(double footprint, double l1_bytes, double l2_bytes) {
  if (footprint <= l1_bytes / 2) return "l1";
  if (footprint >= 2 * l1_bytes && footprint <= l2_bytes / 2) return "l2";
  if (footprint >= 4 * l2_bytes) return "hbm";
  return std::nullopt;
}

LatencyPlateaus pointer_chase_plateaus(const DeviceMeasurements& sweep, double l1_bytes, double l2_bytes) {
  std::vector<double> l1, l2, hbm;
  for (const DeviceMeasurement& row : sweep.rows) {
    if (row.benchmark != "pointer-chase") continue;
    if (row.metric != "latency" || row.unit != "cycles") {
      throw device_row_error(sweep, row, "a sweep row is latency in cycles, not " + row.metric + " in " + row.unit);
    }
    const double footprint = static_cast<double>(device_int_param(sweep, row, "footprint_bytes", 1));
    const std::optional<std::string> level = pointer_chase_level(footprint, l1_bytes, l2_bytes);
    if (!level) continue;
    (*level == "l1" ? l1 : *level == "l2" ? l2 : hbm).push_back(row.value);
  }
  return {median(l1), median(l2), median(hbm)};
}

}  // namespace hpcsim

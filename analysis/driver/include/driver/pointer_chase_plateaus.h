#pragma once
// The L1, L2 and DRAM latency plateaus of a pointer-chase sweep (rows `pointer-chase`, params
// `footprint_bytes=N`, metric `latency` in `cycles`), from the suite on a real GPU or its WarpSim twin, so
// both can be set beside the published plateaus in configs/measurements.
#include <optional>
#include <string>

#include "driver/device_measurements.h"

namespace hpcsim {

struct LatencyPlateaus {
  // Each the median latency of the footprints well inside that level; empty when the sweep has none there.
  std::optional<double> l1;   // footprint <= l1_bytes / 2
  std::optional<double> l2;   // 2 x l1_bytes <= footprint <= l2_bytes / 2 (A100/H100: within the near half)
  std::optional<double> hbm;  // footprint >= 4 x l2_bytes
};

// The level a chase over `footprint` bytes measures: "l1", "l2" or "hbm" by the bands above; empty between
// them (a transition: part hits, part misses).
std::optional<std::string> pointer_chase_level(double footprint, double l1_bytes, double l2_bytes);

// Footprints between the bands are transitions and count for none. A pointer-chase row with another metric
// or unit, or without an integer footprint_bytes >= 1, is a ConfigError at its line.
LatencyPlateaus pointer_chase_plateaus(const DeviceMeasurements& sweep, double l1_bytes, double l2_bytes);

}  // namespace hpcsim

#pragma once
// The occupancy a Kineto trace states for each kernel ("est. achieved occupancy %") against hpcsim's
// occupancy calculator (models/gpu/occupancy.h). Kineto's estimate is min(resident blocks per SM by the
// CUDA occupancy rules, grid blocks / SMs) x threads per block / max threads per SM, printed as
// (int)(0.5 + 100 x that); hpcsim computes the same expression with its own resident-block count, so the
// two differ only where the calculators do (see docs/traces.md for the cases found).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "workloads/trace/kineto_trace.h"

namespace hpcsim {

struct OccupancyCheckRow {
  std::string kernel;  // the first kernel with this launch
  std::array<int, 3> grid{}, block{};
  int registers_per_thread = 0, smem_per_block = 0;
  std::int64_t kernels = 0;     // kernels with this launch and stated value
  double stated_percent = 0;    // the trace's
  std::optional<int> ours_percent;  // hpcsim's, by Kineto's formula; empty when our calculator refuses the launch
  int resident_blocks = 0;      // hpcsim's resident blocks per SM
  std::string limiter;          // what bounds them
  std::string note;             // why ours differs, when it does
};

struct OccupancyCheck {
  std::string compute_capability;  // the trace device's, e.g. "8.0"; empty when it has none (AMD)
  std::vector<OccupancyCheckRow> rows;
  std::int64_t kernels_checked = 0, kernels_equal = 0;
};

// Distinct (launch, stated value) rows in first-seen order. No rows when the trace states no occupancy or
// hpcsim has no occupancy table for the device's compute capability.
OccupancyCheck check_occupancy(const KinetoTrace& trace);

}  // namespace hpcsim

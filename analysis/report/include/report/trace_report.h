#pragma once
// What `hpcsim import kineto` prints beside the report's metrics: the occupancy each distinct kernel
// launch states in the trace against hpcsim's calculator.
#include <string>

#include "workloads/trace/kineto_occupancy.h"

namespace hpcsim {

// One line per distinct launch: grid, block, registers, shared memory, kernels, stated %, hpcsim's %,
// resident blocks and limiter, and why they differ when they do.
std::string occupancy_check_table(const OccupancyCheck& check);
// The same rows as a JSON array (configs/json_writer.h).
std::string occupancy_check_json(const OccupancyCheck& check);

}  // namespace hpcsim

#pragma once
// Jobs from a YAML job list:
//   jobs:
//     - {id: 1, submit: 0 s, nodes: 2, run: 1 h, estimate: 2 h}   # id defaults to the position (from 1),
//                                                                 # estimate to the run time
// Returned in queue order (submit time, then id). Bad keys and values are ConfigErrors at their place.
#include <vector>

#include "configs/config_node.h"
#include "workloads/scheduling/batch_job.h"

namespace hpcsim {

std::vector<BatchJob> parse_job_list(const ConfigNode& root);

}  // namespace hpcsim

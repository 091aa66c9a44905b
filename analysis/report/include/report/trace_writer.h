#pragma once
// A simulated step's timeline as Chrome trace-event JSON (chrome://tracing, Perfetto, `hpcsim run --trace`).
#include <string>
#include <vector>

#include "workloads/training/model_training_step.h"

namespace hpcsim {

// One complete event ("ph": "X") per op, ts and dur in microseconds, pid 0, one tid per lane in order of
// first appearance (named by thread_name metadata), args.category. `process` names pid 0.
// Same timeline, same bytes.
std::string chrome_trace_json(const std::string& process, const std::vector<TimelineOp>& timeline);

}  // namespace hpcsim

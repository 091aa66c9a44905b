#pragma once
// Pieces of Chrome trace-event JSON shared by the step trace (`run --trace`) and the schedule's Gantt
// chart (private to report/): microsecond stamps and metadata events.
#include <string>

#include "configs/json_writer.h"

namespace hpcsim::trace_json {

// Microseconds with nanosecond resolution: fixed notation keeps the bytes stable and readable.
inline std::string micros(double seconds) { return json::fixed(seconds * 1e6, 3); }

// A metadata event ("ph": "M") of pid 0; `args` is the inside of its args object.
inline std::string metadata(const char* name, int tid, const std::string& args) {
  return std::string("{\"name\":\"") + name + "\",\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(tid) +
         ",\"args\":{" + args + "}}";
}

}  // namespace hpcsim::trace_json

#pragma once
// A replay's timeline as Chrome trace-event JSON (Perfetto, chrome://tracing): one lane per kept rank, in
// rank order, each segment an event named by its activity (compute, communication, waiting).
#include <string>

#include "report/replay_report.h"

namespace hpcsim {

// Same result, same bytes. A note event at the end says how many segments were left out, if any.
std::string replay_trace_json(const ReplayResult& result, const ReplaySummary& summary);

}  // namespace hpcsim

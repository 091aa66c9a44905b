#pragma once
// The execution graph an imported trace replays as (Kineto and Chakra alike): ops with a class, a
// stream (program order inside it), a release time (when the host issued it; the op cannot start before),
// a duration, or a collective that runs on a platform's fabric; and explicit dependencies. replay_trace()
// runs it as a sim-core ExecutionGraph on a Simulator.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_kind.h"

namespace hpcsim {

class Platform;

enum class TraceOpClass : std::uint8_t { compute, memory, collective, host };

// No stream: only explicit dependencies order the op.
inline constexpr std::uint32_t kTraceNoStream = 0xffffffffu;

struct TraceOp {
  TraceOpClass cls = TraceOpClass::compute;
  std::uint32_t stream = kTraceNoStream;
  double release_s = 0;   // earliest start, from the replay's origin
  double duration_s = 0;  // fixed duration (a collective's when no platform runs it)
  // A collective the platform's fabric times (replay_trace with a platform): op and bytes per rank.
  std::optional<CollectiveOp> collective;
  double bytes = 0;
};

struct TraceGraph {
  std::vector<TraceOp> ops;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> deps;  // (before, after)
};

// Where collectives run: a platform and the group of GPUs the trace's rank belongs to.
struct TraceFabric {
  Platform* platform = nullptr;
  CollectiveGroup group;
};

struct TraceReplayResult {
  double makespan_s = 0;   // first op start to last op end
  double busy_s = 0;       // union of device op intervals (host ops excluded)
  double compute_busy_s = 0, memory_busy_s = 0, collective_busy_s = 0;  // each class's union
  double communication_exposed_s = 0;  // collective time with no compute or memory op running
  std::vector<double> start_s, end_s;  // per op
  std::int64_t events = 0;             // simulator events
};

// Runs the graph. Collective ops with bytes > 0 run on `fabric` when one is given, else take duration_s.
// GraphError for a cycle or a dependency on an unknown op.
TraceReplayResult replay_trace(const TraceGraph& graph, const TraceFabric* fabric = nullptr);

// The length of the union of [start, end) intervals.
double interval_union_s(std::vector<std::pair<double, double>> intervals);

}  // namespace hpcsim

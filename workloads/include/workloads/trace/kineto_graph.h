#pragma once
// A Kineto trace as a TraceGraph: one op per GPU activity on its stream (stream order), cross-stream
// dependencies from the trace's "Stream Wait Event" records, and each op released at the host call that
// launched it plus the trace's launch latency, so a replay keeps the host's recorded pace.
#include <optional>
#include <string>
#include <vector>

#include "workloads/trace/kineto_trace.h"
#include "workloads/trace/trace_graph.h"

namespace hpcsim {

// What the trace itself shows for its device: first activity start to last activity end, and the union
// of the activity intervals (the GPU busy time, as HolisticTraceAnalysis counts it).
struct KinetoRecorded {
  double span_s = 0;
  double busy_s = 0;
  double compute_busy_s = 0, memory_busy_s = 0, collective_busy_s = 0;
  std::int64_t kernels = 0, memcpys = 0, memsets = 0, nccl_kernels = 0;
  std::int64_t streams = 0;
  std::int64_t cross_stream_waits = 0;  // waits that became dependencies
};
KinetoRecorded kineto_recorded(const KinetoTrace& trace);

// The median delay from a host launch call to its activity's start over the activities that did not queue
// behind their stream (their stream was idle when they were launched); 0 when none qualifies.
double kineto_launch_latency_s(const KinetoTrace& trace);

// The op class of an activity: NCCL kernels are collectives, memcpy and memset memory, other kernels compute.
TraceOpClass kineto_op_class(const GpuActivity& activity);

// The collective an NCCL kernel's recorded name stands for ("allreduce", "all_gather_into_tensor", ...);
// empty for names hpcsim has no collective for.
std::optional<CollectiveOp> kineto_collective(const std::string& collective_name);

// The graph with these durations (one per activity, in trace order). An activity with no launch call is
// released at its recorded start. With `collectives`, NCCL kernels whose trace records a collective hpcsim
// knows and its size become collective ops (replay_trace runs them on a fabric); the rest keep durations.
TraceGraph kineto_graph(const KinetoTrace& trace, const std::vector<double>& durations_s, double launch_latency_s,
                        bool collectives = false);

// The recorded durations.
std::vector<double> recorded_durations(const KinetoTrace& trace);

}  // namespace hpcsim

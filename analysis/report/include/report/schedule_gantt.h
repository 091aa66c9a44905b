#pragma once
// Who ran where and when: a schedule as Chrome trace-event JSON, the format `hpcsim run --trace` writes
// (chrome://tracing, Perfetto), for `hpcsim schedule --gantt FILE`.
//
// pid 0 is the cluster (named by `process`); one row (tid) per node, tid = node id, named "node N" and
// sorted by id, every node of the cluster listed even when idle. Each job is one complete event ("ph":
// "X") on each of its nodes, named "job ID", category "job" (or "killed", or "preempted" for a run that
// preemption cut short: a requeued job's earlier runs come before its last), ts = start and dur = end -
// start in microseconds on the trace's own clock, args {"id", "nodes" (its node count), "wait_s",
// "killed"}. Events are in job order (the order of `runs`), then node order within a job.
// Size: about 150 bytes per (job, node) pair, so a 5,000-job trace on 100 nodes is a few MB; for a large
// machine pass a window of nodes (first_node, node_count) to draw only those rows.
// Same schedule, same bytes.
#include <string>
#include <vector>

#include "workloads/scheduling/batch_queue.h"

namespace hpcsim {

struct GanttOptions {
  std::string process = "hpcsim schedule";
  int first_node = 0;   // rows [first_node, first_node + node_count)
  int node_count = -1;  // < 0: every node from first_node on
};

// `nodes`: the cluster's node count (rows). std::invalid_argument for a job on a node outside
// [0, nodes) or a window outside the cluster.
std::string schedule_gantt_json(const std::vector<QueueRun>& runs, int nodes, const GanttOptions& options = {});

}  // namespace hpcsim

#include "report/schedule_gantt.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "trace_json.h"

namespace hpcsim {

namespace {

// Text that reads back as the same double (17 significant digits).
std::string number(double v) { return json::number(v, 17); }

}  // namespace

std::string schedule_gantt_json(const std::vector<QueueRun>& runs, int nodes, const GanttOptions& options) {
  using trace_json::metadata;
    const int first = options.first_node;
  const int last = options.node_count < 0 ? nodes : first + options.node_count;  // exclusive
  if (nodes < 0 || first < 0 || last < first || last > nodes) {
    throw std::invalid_argument("gantt: rows [" + std::to_string(first) + ", " + std::to_string(last) +
                                ") are not nodes of a " + std::to_string(nodes) + "-node cluster");
  }
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  out += metadata("process_name", 0, "\"name\":" + json::quote(options.process));
  for (int n = first; n < last; ++n) {
    out += ",\n" + metadata("thread_name", n, "\"name\":\"node " + std::to_string(n) + "\"");
    out += ",\n" + metadata("thread_sort_index", n, "\"sort_index\":" + std::to_string(n));
  }
  std::vector<int> sorted;
  // One span per node of a run: the job's last run, and each earlier run preemption cut short.
  const auto draw = [&](const ScheduledJob& s, const std::vector<int>& node_ids, double start_s, double end_s,
                        const char* category) {
    sorted.assign(node_ids.begin(), node_ids.end());
    std::sort(sorted.begin(), sorted.end());
    const std::string id = std::to_string(s.job.id);
    // Everything but the tid is the same on each node.
    const std::string head = ",\n{\"name\":\"job " + id + "\",\"cat\":\"" + category +
                             "\",\"ph\":\"X\",\"ts\":" + trace_json::micros(start_s) +
                             ",\"dur\":" + trace_json::micros(std::max(0.0, end_s - start_s)) +
                             ",\"pid\":0,\"tid\":";
    const std::string tail = ",\"args\":{\"id\":" + id + ",\"nodes\":" + std::to_string(sorted.size()) +
                             ",\"wait_s\":" + number(s.wait_s()) + ",\"killed\":" + (s.killed ? "true" : "false") +
                             "}}";
    for (const int n : sorted) {
      if (n < 0 || n >= nodes) {
        throw std::invalid_argument("gantt: job " + id + " ran on node " + std::to_string(n) + " of a " +
                                    std::to_string(nodes) + "-node cluster");
      }
      if (n < first || n >= last) continue;
      out += head + std::to_string(n) + tail;
    }
  };
  for (const QueueRun& run : runs) {
    const ScheduledJob& s = run.scheduled;
    for (const PreemptedRun& earlier : run.requeued_runs) draw(s, earlier.node_ids, earlier.start_s, earlier.end_s, "preempted");
    draw(s, run.node_ids, s.start_s, s.end_s, run.cancelled ? "preempted" : s.killed ? "killed" : "job");
  }
  out += "\n]}\n";
  return out;
}

}  // namespace hpcsim

#include "report/schedule_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "configs/json_writer.h"
#include "report_format.h"

namespace hpcsim {

namespace {

constexpr double kTau = 10;  // bounded slowdown's threshold, seconds

std::string number(double v) { return json::number(v, 10); }

}  // namespace

ScheduleSummary summarize_schedule(const std::vector<QueueRun>& runs, std::int64_t skipped, int nodes) {
  ScheduleSummary s;
  s.jobs = static_cast<std::int64_t>(runs.size());
  s.skipped = skipped;
  if (runs.empty()) return s;
  std::vector<double> waits;
  double first_submit = runs.front().scheduled.job.submit_s, last_end = 0, busy = 0, slowdown = 0;
  for (const QueueRun& r : runs) {
    const ScheduledJob& j = r.scheduled;
    const double run = j.end_s - j.start_s;
    waits.push_back(j.wait_s());
    slowdown += std::max(1.0, (j.wait_s() + run) / std::max(run, kTau));
    busy += run * j.job.nodes;
    for (const PreemptedRun& earlier : r.requeued_runs) busy += (earlier.end_s - earlier.start_s) * j.job.nodes;
    first_submit = std::min(first_submit, j.job.submit_s);
    last_end = std::max(last_end, j.end_s);
  }
  std::sort(waits.begin(), waits.end());
  double total_wait = 0;
  for (const double w : waits) total_wait += w;
  const auto n = static_cast<double>(waits.size());
  s.mean_wait_s = total_wait / n;
  s.p95_wait_s = waits[static_cast<std::size_t>(std::ceil(0.95 * n)) - 1];
  s.mean_bounded_slowdown = slowdown / n;
  s.makespan_s = last_end - first_submit;
  s.utilization = s.makespan_s > 0 ? busy / (nodes * s.makespan_s) : 0;
  return s;
}

std::vector<Metric> schedule_metrics(const ScheduleSummary& s) {
  return {{"jobs", static_cast<double>(s.jobs), "count"},
          {"skipped", static_cast<double>(s.skipped), "count"},
          {"mean_wait_s", s.mean_wait_s, "s"},
          {"p95_wait_s", s.p95_wait_s, "s"},
          {"mean_bounded_slowdown", s.mean_bounded_slowdown, "ratio"},
          {"utilization", s.utilization, "ratio"},
          {"makespan_s", s.makespan_s, "s"}};
}

std::string schedule_to_json(const std::vector<QueueRun>& runs, const ScheduleSummary& s,
                             const std::vector<std::string>& partitions) {
  std::ostringstream out;
  out << "{\n  \"jobs\": [";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ScheduledJob& j = runs[i].scheduled;
    out << (i == 0 ? "\n" : ",\n") << "    {\"id\": " << j.job.id << ", \"submit_s\": " << number(j.job.submit_s)
        << ", \"start_s\": " << number(j.start_s) << ", \"end_s\": " << number(j.end_s)
        << ", \"wait_s\": " << number(j.wait_s()) << ", \"nodes\": " << j.job.nodes
        << ", \"partition\": " << json::quote(partitions.at(static_cast<std::size_t>(j.job.partition)))
        << ", \"killed\": " << (j.killed ? "true" : "false")
        << ", \"preemptions\": " << runs[i].requeued_runs.size() + (runs[i].cancelled ? 1 : 0)
        << ", \"cancelled\": " << (runs[i].cancelled ? "true" : "false") << "}";
  }
  out << (runs.empty() ? "]" : "\n  ]") << ",\n  \"summary\": {\"jobs\": " << s.jobs << ", \"skipped\": " << s.skipped
      << ", \"mean_wait_s\": " << number(s.mean_wait_s) << ", \"p95_wait_s\": " << number(s.p95_wait_s)
      << ", \"mean_bounded_slowdown\": " << number(s.mean_bounded_slowdown)
      << ", \"utilization\": " << number(s.utilization) << ", \"makespan_s\": " << number(s.makespan_s) << "}\n}\n";
  return out.str();
}

std::string schedule_to_table(const std::vector<QueueRun>& runs, const ScheduleSummary& s,
                              const std::vector<std::string>& partitions) {
  std::ostringstream out;
  const std::size_t shown = std::min<std::size_t>(runs.size(), 20);
  const bool named = partitions.size() > 1;  // one partition: the whole machine, no column
  out << "      id     submit_s      start_s        end_s       wait_s  nodes  killed" << (named ? "  partition" : "") << "\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const ScheduledJob& j = runs[i].scheduled;
    char line[160];
    std::snprintf(line, sizeof line, "%8lld %12.0f %12.0f %12.0f %12.0f %6d  %-6s", static_cast<long long>(j.job.id),
                  j.job.submit_s, j.start_s, j.end_s, j.wait_s(), j.job.nodes, j.killed ? "yes" : "no");
    std::string row = line;
    if (named) row += "  " + partitions.at(static_cast<std::size_t>(j.job.partition));
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out << row << "\n";
  }
  if (runs.size() > shown) out << "  ... " << runs.size() - shown << " more (--format json or csv lists every job)\n";
  out << "\njobs " << s.jobs << ", skipped " << s.skipped << "\nmean wait " << report_format::value(s.mean_wait_s)
      << " s, p95 wait " << report_format::value(s.p95_wait_s) << " s\nmean bounded slowdown "
      << report_format::value(s.mean_bounded_slowdown) << "\nutilization " << report_format::percent(s.utilization, false)
      << "\nmakespan " << report_format::value(s.makespan_s) << " s\n";
  return out.str();
}

std::string schedule_to_csv(const std::vector<QueueRun>& runs, const std::vector<std::string>& partitions) {
  std::ostringstream out;
  out << "id,submit_s,start_s,end_s,wait_s,nodes,killed,preemptions,cancelled,partition\n";
  for (const QueueRun& r : runs) {
    const ScheduledJob& j = r.scheduled;
    out << j.job.id << "," << number(j.job.submit_s) << "," << number(j.start_s) << "," << number(j.end_s) << ","
        << number(j.wait_s()) << "," << j.job.nodes << "," << (j.killed ? "true" : "false") << ","
        << r.requeued_runs.size() + (r.cancelled ? 1 : 0) << "," << (r.cancelled ? "true" : "false") << ","
        << partitions.at(static_cast<std::size_t>(j.job.partition)) << "\n";
  }
  return out.str();
}

}  // namespace hpcsim

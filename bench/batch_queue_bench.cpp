// The batch queue at scale: a synthetic trace (workloads/scheduling/synthetic_trace.h, Lublin-Feitelson-like,
// offered load 0.9) of 1,000,000 jobs on 100,000 nodes through EASY and conservative backfilling, then the
// real KTH SP2 trace (tests/data/traces, 5,000 jobs) on 100 nodes through FCFS, EASY and conservative.
//
// Each synthetic run is a fresh child process (fork), so its peak RSS (VmHWM) is its own: the trace, the
// queue and the schedule it returns. The trace is generated inside the child and timed apart from the
// queue; "rss_before" is the child's resident set just before the queue starts (the trace and the
// binary). The KTH runs repeat `--repeat` times (default 5) and report the median wall time. cpu_s is the
// process's CPU time over the same span (user + system): on a shared machine it moves less than wall_s.
// A schedule digest (FNV-1a over every job's start time and nodes) tells equal schedules apart from
// different ones: a faster queue must print the same digest.
//
// Usage: batch_queue_bench [--jobs N] [--nodes M] [--policy easy|conservative|fcfs|all] [--seed S]
//                          [--load L] [--limit SECONDS] [--repeat K] [--kth FILE | --no-kth | --kth-only]
//                          [--synthetic-only] [--gantt FILE]
//   --policy all (default) runs easy then conservative on the synthetic trace; --limit stops a child that
//   runs longer (reported as such; conservative may be far slower: give it a smaller --jobs). --gantt
//   writes the KTH EASY schedule's Gantt chart (analysis/schedule_gantt.h; scripts/gantt_png.py draws it).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "report/schedule_gantt.h"
#include "report/schedule_report.h"
#include "workloads/scheduling/batch_queue.h"
#include "workloads/scheduling/swf_trace.h"
#include "workloads/scheduling/synthetic_trace.h"

namespace {

using namespace hpcsim;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// This process's CPU time (user + system): on a shared machine it moves less than the wall time.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

// A field of /proc/self/status in KiB (VmHWM: peak resident set; VmRSS: now).
long status_kib(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(status, line)) {
    if (line.compare(0, key.size(), key) == 0) return std::strtol(line.c_str() + key.size(), nullptr, 10);
  }
  return -1;
}

std::uint64_t digest(const std::vector<QueueRun>& runs) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 0x100000001b3ULL;
  };
  for (const QueueRun& r : runs) {
    std::uint64_t bits;
    std::memcpy(&bits, &r.scheduled.start_s, sizeof bits);
    mix(bits);
    for (const int n : r.node_ids) mix(static_cast<std::uint64_t>(n));
  }
  return h;
}

struct Args {
  std::int64_t jobs = 1'000'000;
  int nodes = 100'000;
  std::string policy = "all";
  std::uint64_t seed = 1;
  double load = 0.9;
  unsigned limit_s = 0;
  std::string kth = HPCSIM_SOURCE_DIR "/tests/data/traces/KTH-SP2-1996-2.1-cln-first5000.swf";
  bool synthetic = true;
  int repeat = 5;
  std::string gantt;  // writes the KTH EASY schedule there (schedule_gantt_json)
};

void print_header() {
  std::printf("%-13s %9s %8s %9s %8s %12s %12s %12s %12s %7s  %s\n", "policy", "jobs", "nodes", "wall_s", "cpu_s",
              "jobs_per_s", "peak_rss_MiB", "rss_before", "mean_wait_s", "util", "digest");
}

void print_row(const char* policy, std::int64_t jobs, int nodes, double wall_s, double cpu_s, long peak_kib,
               long before_kib, const ScheduleSummary& s, std::uint64_t d) {
  std::printf("%-13s %9lld %8d %9.3f %8.3f %12.0f %12.1f %12.1f %12.1f %7.4f  %016llx\n", policy,
              static_cast<long long>(jobs), nodes, wall_s, cpu_s, static_cast<double>(jobs) / wall_s, peak_kib / 1024.0,
              before_kib / 1024.0, s.mean_wait_s, s.utilization, static_cast<unsigned long long>(d));
  std::fflush(stdout);
}

// One synthetic run in this (child) process.
void synthetic_run(const Args& a, QueuePolicy policy) {
  SyntheticTraceOptions options;
  options.jobs = a.jobs;
  options.machine_nodes = a.nodes;
  options.load = a.load;
  options.seed = a.seed;
  const auto generated = Clock::now();
  const std::vector<BatchJob> jobs = synthetic_trace(options);
  const double generate_s = seconds_since(generated);
  const long before = status_kib("VmRSS");
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds();
  const std::vector<QueueRun> runs = simulate_batch_queue(jobs, a.nodes, policy);
  const double wall = seconds_since(start);
  const double cpu = cpu_seconds() - cpu_start;
  const long peak = status_kib("VmHWM");
  double node_ids = 0;
  for (const QueueRun& r : runs) node_ids += static_cast<double>(r.node_ids.size());
  std::fprintf(stderr, "  (%s: trace generated in %.3f s; mean job %.1f nodes, so the schedule's node lists hold "
               "%.0f MiB)\n", std::string(kQueuePolicyNames.name(policy)).c_str(), generate_s,
               node_ids / static_cast<double>(runs.size()), node_ids * sizeof(int) / 1048576.0);
  print_row(std::string(kQueuePolicyNames.name(policy)).c_str(), a.jobs, a.nodes, wall, cpu, peak, before,
            summarize_schedule(runs, 0, a.nodes), digest(runs));
}

void synthetic_in_child(const Args& a, QueuePolicy policy) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    std::exit(1);
  }
  if (child == 0) {
    if (a.limit_s > 0) alarm(a.limit_s);  // SIGALRM ends the child
    synthetic_run(a, policy);
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) {
    std::printf("%-13s %9lld %8d  did not finish: %s after the limit of %u s\n",
                std::string(kQueuePolicyNames.name(policy)).c_str(), static_cast<long long>(a.jobs), a.nodes,
                strsignal(WTERMSIG(status)), a.limit_s);
  }
}

void kth_runs(const Args& a) {
  SwfOptions swf;
  swf.machine_nodes = 100;
  const SwfTrace trace = load_swf(a.kth, swf);
  std::printf("\nKTH SP2 (%s): %zu jobs (%lld skipped) on 100 nodes, median of %d runs\n", a.kth.c_str(),
              trace.jobs.size(), static_cast<long long>(trace.skipped), a.repeat);
  print_header();
  for (const QueuePolicy policy : {QueuePolicy::fcfs, QueuePolicy::easy, QueuePolicy::conservative}) {
    std::vector<double> walls, cpus;
    std::vector<QueueRun> runs;
    for (int k = 0; k < a.repeat; ++k) {
      const auto start = Clock::now();
      const double cpu_start = cpu_seconds();
      runs = simulate_batch_queue(trace.jobs, 100, policy);
      walls.push_back(seconds_since(start));
      cpus.push_back(cpu_seconds() - cpu_start);
    }
    std::sort(walls.begin(), walls.end());
    std::sort(cpus.begin(), cpus.end());
    const ScheduleSummary s = summarize_schedule(runs, trace.skipped, 100);
    print_row(std::string(kQueuePolicyNames.name(policy)).c_str(), static_cast<std::int64_t>(trace.jobs.size()), 100,
              walls[walls.size() / 2], cpus[cpus.size() / 2], status_kib("VmHWM"), 0, s, digest(runs));
    std::printf("%13s mean_wait_s %.1f, p95_wait_s %.1f, mean_bounded_slowdown %.2f, utilization %.4f, "
                "makespan_s %.0f\n", "", s.mean_wait_s, s.p95_wait_s, s.mean_bounded_slowdown, s.utilization,
                s.makespan_s);
    if (policy == QueuePolicy::easy && !a.gantt.empty()) {
      const auto start = Clock::now();
      const std::string json = schedule_gantt_json(runs, 100, {"KTH SP2, EASY, 100 nodes", 0, -1});
      const double write_s = seconds_since(start);
      std::ofstream(a.gantt, std::ios::binary) << json;
      std::printf("%13s gantt: %s, %.1f MB in %.3f s\n", "", a.gantt.c_str(), json.size() / 1e6, write_s);
    }
  }
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "%s\nusage: batch_queue_bench [--jobs N] [--nodes M] [--policy easy|conservative|fcfs|all] "
               "[--seed S] [--load L] [--limit SECONDS] [--repeat K] [--kth FILE | --no-kth | --kth-only] [--synthetic-only] [--gantt FILE]\n",
               why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  bool kth = true;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(("missing value after " + flag).c_str());
      return argv[++i];
    };
    if (flag == "--jobs") a.jobs = std::atoll(value());
    else if (flag == "--nodes") a.nodes = std::atoi(value());
    else if (flag == "--policy") a.policy = value();
    else if (flag == "--seed") a.seed = std::strtoull(value(), nullptr, 10);
    else if (flag == "--load") a.load = std::atof(value());
    else if (flag == "--limit") a.limit_s = static_cast<unsigned>(std::atoi(value()));
    else if (flag == "--repeat") a.repeat = std::max(1, std::atoi(value()));
    else if (flag == "--kth") a.kth = value();
    else if (flag == "--gantt") a.gantt = value();
    else if (flag == "--no-kth") kth = false;
    else if (flag == "--kth-only") a.synthetic = false;
    else if (flag == "--synthetic-only") kth = false;
    else usage(("unknown argument " + flag).c_str());
  }
  std::vector<QueuePolicy> policies;
  if (a.policy == "all") {
    policies = {QueuePolicy::easy, QueuePolicy::conservative};
  } else {
    const auto p = kQueuePolicyNames.parse(a.policy);
    if (!p || *p == QueuePolicy::priority) usage(("unknown policy " + a.policy).c_str());
    policies = {*p};
  }
  if (a.synthetic) {
    std::printf("synthetic trace: %lld jobs on %d nodes, offered load %.2f, seed %llu; each policy in a fresh "
                "process\n", static_cast<long long>(a.jobs), a.nodes, a.load, static_cast<unsigned long long>(a.seed));
    print_header();
    for (const QueuePolicy policy : policies) synthetic_in_child(a, policy);
  }
  if (kth) kth_runs(a);
  return 0;
}

#include "workloads/scheduling/synthetic_trace.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "sim-core/random.h"

namespace hpcsim {

namespace {

double uniform(std::mt19937_64& rng, double lo, double hi) { return lo + (hi - lo) * uniform01(rng()); }

// Log-uniform on [lo, hi] (lo > 0).
double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::exp(uniform(rng, std::log(lo), std::log(hi)));
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("synthetic trace: " + what);
}

int job_size(std::mt19937_64& rng, const SyntheticTraceOptions& o, int max_nodes) {
  // Every draw is made whatever the branch, so one job always takes the same number of engine outputs.
  const double serial = uniform01(rng()), stage = uniform01(rng());
  const double position = uniform01(rng()), rounding = uniform01(rng());
  if (max_nodes < 2 || serial < o.serial_fraction) return 1;
  const double top = std::log2(static_cast<double>(max_nodes));
  const double middle = (1.0 + top) / 2.0;
  const double log_size = stage < o.small_job_fraction ? 1.0 + (middle - 1.0) * position
                                                       : middle + (top - middle) * position;
  const double size = rounding < o.power_of_two_fraction ? std::exp2(std::round(log_size)) : std::round(std::exp2(log_size));
  return std::clamp(static_cast<int>(size), 2, max_nodes);
}

}  // namespace

std::vector<BatchJob> synthetic_trace(const SyntheticTraceOptions& o) {
  require(o.jobs >= 0, "jobs must be >= 0");
  require(o.machine_nodes >= 1, "the machine needs at least one node");
  require(o.load > 0, "load must be > 0");
  require(o.min_run_s >= 1 && o.min_run_s <= o.max_run_s, "run times need 1 <= min_run_s <= max_run_s");
  require(o.max_overestimate >= 1, "max_overestimate must be >= 1");
  require(o.max_job_fraction > 0 && o.max_job_fraction <= 1, "max_job_fraction must be in (0, 1]");
  const int max_nodes = std::max(1, static_cast<int>(o.max_job_fraction * o.machine_nodes));

  std::mt19937_64 rng(o.seed);
  std::vector<BatchJob> jobs(static_cast<std::size_t>(o.jobs));
  double work = 0;  // node-seconds
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    BatchJob& job = jobs[i];
    job.id = static_cast<std::int64_t>(i) + 1;
    job.nodes = job_size(rng, o, max_nodes);
    job.run_s = std::round(log_uniform(rng, o.min_run_s, o.max_run_s));
    const double exact = uniform01(rng()), factor = log_uniform(rng, 1.0, o.max_overestimate);
    job.estimate_s = exact < o.exact_estimate_fraction ? job.run_s : std::max(job.run_s, std::ceil(job.run_s * factor));
    work += job.run_s * job.nodes;
  }
  // Poisson arrivals: mean gap = span / jobs, span = work / (load x nodes).
  const double mean_gap = jobs.empty() ? 0 : work / (o.load * o.machine_nodes) / static_cast<double>(jobs.size());
  double t = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0) t += -mean_gap * std::log1p(-uniform01(rng()));
    jobs[i].submit_s = std::floor(t);  // nondecreasing, ids increasing: queue order
  }
  return jobs;
}

}  // namespace hpcsim

#pragma once
// A seeded synthetic batch workload, shaped like the Lublin-Feitelson model (JPDC 2003) closely enough to
// exercise a scheduler at any scale:
//   size: a fraction of jobs is serial (1 node); the others draw log2(size) from a two-stage uniform (most
//         of the mass on small sizes, a tail up to max_job_fraction of the machine), and most round to a
//         power of two;
//   run time: log-uniform over [min_run_s, max_run_s], whole seconds;
//   estimate: run time x a factor >= 1 drawn per job (users over-ask): exact with probability
//         exact_estimate_fraction, else log-uniform in [1, max_overestimate], whole seconds (never below
//         the run time, so no job is killed);
//   arrivals: a Poisson process, whole seconds, at the rate that makes the offered load (node-seconds of
//         work / (nodes x span of submits)) equal to `load` for the jobs drawn.
// Deterministic for a seed: a std::mt19937_64 (its output is fixed by the standard) drives our own
// arithmetic (53-bit uniforms, inverse-CDF exponentials and log-uniforms), never the standard's
// distributions, whose outputs vary by library. The only platform dependence left is std::log/std::exp,
// which the common C libraries round identically for these arguments in practice.
#include <cstdint>
#include <vector>

#include "workloads/scheduling/batch_job.h"

namespace hpcsim {

struct SyntheticTraceOptions {
  std::int64_t jobs = 1000;
  int machine_nodes = 128;
  double load = 0.9;                   // offered load, > 0
  std::uint64_t seed = 1;
  double serial_fraction = 0.25;       // jobs of 1 node
  double max_job_fraction = 0.0625;    // the largest job, as a fraction of the machine (at least 1 node)
  double small_job_fraction = 0.85;    // of the parallel jobs: log2(size) in the lower half of its range
  double power_of_two_fraction = 0.75;  // of the parallel jobs: size rounded to a power of two
  double min_run_s = 10;
  double max_run_s = 129600;           // 36 h
  double exact_estimate_fraction = 0.15;
  double max_overestimate = 10;        // the largest estimate / run time factor
};

// `options.jobs` jobs in queue order (submit time, then id), ids 1..N, the first submitted at 0; each fits
// the machine. std::invalid_argument for options out of range (no nodes, load <= 0, min > max, ...).
std::vector<BatchJob> synthetic_trace(const SyntheticTraceOptions& options);

}  // namespace hpcsim

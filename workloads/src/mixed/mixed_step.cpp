#include "workloads/mixed/mixed_step.h"

#include <algorithm>
#include <cmath>

#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim {

TrainingScenario generation_scenario(const TrainingScenario& scenario, bool second, int micro_batch) {
  TrainingScenario s = scenario;
  s.mixed_nodes.reset();
  s.stragglers.reset();
  s.resilience.reset();
  if (second) s.cluster.node = scenario.mixed_nodes->node;
  s.workload.batch_per_gpu = micro_batch;
  return s;
}

namespace {

MixedGeneration simulate_generation(const TrainingScenario& scenario, bool second, int replicas, int micro_batch) {
  const TrainingStepResult r = simulate_scenario(generation_scenario(scenario, second, micro_batch)).result;
  return {replicas, micro_batch, r.step_time_s, r.fits_in_memory};
}

// Micro batches in proportion to each type's samples/s per replica (b / step), keeping the samples per pass
// over all replicas near `per_pass`; each rounded to the nearest integer, at least 1.
std::pair<int, int> proportional_batches(const MixedGeneration& a, const MixedGeneration& b, double per_pass) {
  const double ra = a.micro_batch / a.step_s, rb = b.micro_batch / b.step_s;
  const double scale = per_pass / (a.replicas * ra + b.replicas * rb);
  const auto round_at_least_1 = [](double x) { return static_cast<int>(std::max(1.0, std::round(x))); };
  return {round_at_least_1(scale * ra), round_at_least_1(scale * rb)};
}

}  // namespace

MixedSteps mixed_steps(const TrainingScenario& scenario, const TrainingStepResult& first_at_file_batch) {
  const MixedNodesConfig& c = *scenario.mixed_nodes;
  const ParallelLayout& layout = scenario.parallelism.layout;
  const int second_replicas = c.nodes * scenario.cluster.gpus_per_node / layout.model_parallel();
  const int first_replicas = layout.dp - second_replicas;
  const int b = scenario.workload.batch_per_gpu;
  const std::int64_t m = scenario.parallelism.microbatches;

  MixedSteps out;
  out.split = c.batch_split;
  out.first = {first_replicas, b, first_at_file_batch.step_time_s, first_at_file_batch.fits_in_memory};
  out.second = simulate_generation(scenario, true, second_replicas, b);
  const double even_s = std::max(out.first.step_s, out.second.step_s);
  if (c.batch_split == BatchSplit::proportional) {
    const double per_pass = static_cast<double>(b) * layout.dp;
    const MixedGeneration first_even = out.first, second_even = out.second;
    for (int round = 0; round < 2; ++round) {  // the ratio at the file's micro batch, then once at the chosen ones
      const auto [b1, b2] = proportional_batches(out.first, out.second, per_pass);
      if (b1 == out.first.micro_batch && b2 == out.second.micro_batch) break;
      out.first = b1 == first_even.micro_batch ? first_even : simulate_generation(scenario, false, first_replicas, b1);
      out.second = b2 == second_even.micro_batch ? second_even : simulate_generation(scenario, true, second_replicas, b2);
    }
  }
  out.job_s = std::max(out.first.step_s, out.second.step_s);
  out.global_batch = (std::int64_t{out.first.micro_batch} * first_replicas +
                      std::int64_t{out.second.micro_batch} * second_replicas) * m;
  out.samples_per_s = static_cast<double>(out.global_batch) / out.job_s;
  out.idle_fraction = 1 - std::min(out.first.step_s, out.second.step_s) / out.job_s;
  if (c.batch_split == BatchSplit::proportional) {
    const double even_samples_per_s = static_cast<double>(scenario.global_batch()) / even_s;
    out.speedup_vs_even = out.samples_per_s / even_samples_per_s;
  }
  return out;
}

}  // namespace hpcsim

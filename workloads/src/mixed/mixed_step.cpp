#include "workloads/mixed/mixed_step.h"

#include <algorithm>
#include <cmath>

#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim {

TrainingScenario generation_scenario(const TrainingScenario& scenario, bool second, int micro_batch, int microbatches) {
  TrainingScenario s = scenario;
  s.mixed_nodes.reset();
  s.stragglers.reset();
  s.resilience.reset();
  if (second) s.cluster.node = scenario.mixed_nodes->node;
  s.workload.batch_per_gpu = micro_batch;
  s.parallelism.microbatches = microbatches;
  return s;
}

namespace {

MixedGeneration simulate_generation(const TrainingScenario& scenario, bool second, int replicas, int micro_batch,
                                    int microbatches) {
  const TrainingStepResult r = simulate_scenario(generation_scenario(scenario, second, micro_batch, microbatches)).result;
  return {replicas, micro_batch, microbatches, r.step_time_s, r.fits_in_memory};
}

// What the proportional split divides: the micro batch when the step has one microbatch, else the count of
// microbatches (the micro batch, and so every kernel's shape, kept), in multiples of `granule`.
struct SplitUnit {
  bool microbatches = false;
  int granule = 1;
  int& of(MixedGeneration& g) const { return microbatches ? g.microbatches : g.micro_batch; }
  int of(const MixedGeneration& g) const { return microbatches ? g.microbatches : g.micro_batch; }
};

// Each type's share in proportion to its samples/s per replica, keeping the samples per step over all
// replicas near `per_step`; rounded to the nearest multiple of the granule, at least one granule.
std::pair<int, int> proportional_shares(const MixedGeneration& a, const MixedGeneration& b, double per_step,
                                        const SplitUnit& unit) {
  const auto samples = [](const MixedGeneration& g) { return double(g.micro_batch) * g.microbatches; };
  const double ra = samples(a) / a.step_s, rb = samples(b) / b.step_s;  // samples/s per replica
  const double scale = per_step / (a.replicas * ra + b.replicas * rb);  // seconds
  const auto share = [&](const MixedGeneration& g, double rate) {
    const double samples_per_share = samples(g) / unit.of(g) * unit.granule;
    return unit.granule * static_cast<int>(std::max(1.0, std::round(scale * rate / samples_per_share)));
  };
  return {share(a, ra), share(b, rb)};
}

}  // namespace

MixedSteps mixed_steps(const TrainingScenario& scenario, const TrainingStepResult& first_at_file_batch) {
  const MixedNodesConfig& c = *scenario.mixed_nodes;
  const ParallelismConfig& par = scenario.parallelism;
  const int second_replicas = c.nodes * scenario.cluster.gpus_per_node / par.layout.model_parallel();
  const int first_replicas = par.layout.dp - second_replicas;
  const int b = scenario.workload.batch_per_gpu, m = par.microbatches;

  MixedSteps out;
  out.split = c.batch_split;
  out.first = {first_replicas, b, m, first_at_file_batch.step_time_s, first_at_file_batch.fits_in_memory};
  out.second = simulate_generation(scenario, true, second_replicas, b, m);
  const double even_s = std::max(out.first.step_s, out.second.step_s);
  if (c.batch_split == BatchSplit::proportional) {
    SplitUnit unit;
    unit.microbatches = m > 1;
    unit.granule = unit.microbatches && par.schedule == PipelineSchedule::interleaved ? par.layout.pp : 1;
    const double per_step = double(b) * m * par.layout.dp;
    const MixedGeneration first_even = out.first, second_even = out.second;
    // A share simulated before (the file's, or the first round's) is not simulated again.
    const auto at = [&](const MixedGeneration& now, const MixedGeneration& even, bool second, int share) {
      if (share == unit.of(now)) return now;
      if (share == unit.of(even)) return even;
      MixedGeneration g = even;
      unit.of(g) = share;
      return simulate_generation(scenario, second, g.replicas, g.micro_batch, g.microbatches);
    };
    for (int round = 0; round < 2; ++round) {  // the ratio at the file's batch, then once at the chosen ones
      const auto [s1, s2] = proportional_shares(out.first, out.second, per_step, unit);
      if (s1 == unit.of(out.first) && s2 == unit.of(out.second)) break;
      out.first = at(out.first, first_even, false, s1);
      out.second = at(out.second, second_even, true, s2);
    }
  }
  out.job_s = std::max(out.first.step_s, out.second.step_s);
  const auto samples = [](const MixedGeneration& g) {
    return std::int64_t{g.micro_batch} * g.microbatches * g.replicas;
  };
  out.global_batch = samples(out.first) + samples(out.second);
  out.samples_per_s = static_cast<double>(out.global_batch) / out.job_s;
  out.idle_fraction = 1 - std::min(out.first.step_s, out.second.step_s) / out.job_s;
  if (c.batch_split == BatchSplit::proportional) {
    const double even_samples_per_s = static_cast<double>(scenario.global_batch()) / even_s;
    out.speedup_vs_even = out.samples_per_s / even_samples_per_s;
  }
  return out;
}

}  // namespace hpcsim

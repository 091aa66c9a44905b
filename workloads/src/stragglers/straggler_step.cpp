#include "workloads/stragglers/straggler_step.h"

#include "workloads/scenario/simulate_scenario.h"

namespace hpcsim {

TrainingScenario slowed_scenario(const TrainingScenario& scenario, double gpu_clock, double link_bandwidth) {
  TrainingScenario s = scenario;
  s.stragglers.reset();
  s.resilience.reset();
  GpuSpec& gpu = s.cluster.node.gpu;
  gpu.boost_clock_hz *= gpu_clock;
  gpu.tensor_clock_hz *= gpu_clock;
  if (s.cluster.network) s.cluster.network->rate *= link_bandwidth;
  return s;
}

StragglerSteps straggler_steps(const TrainingScenario& scenario, double base_s) {
  const StragglerConfig& c = *scenario.stragglers;
  StragglerSteps out;
  out.base_s = base_s;
  out.odds = straggler_odds(c, scenario.cluster.gpus(), scenario.cluster.nodes);
  const auto step = [&](double clock, double link) {
    return simulate_scenario(slowed_scenario(scenario, clock, link)).result.step_time_s;
  };
  const bool gpus = c.slow_gpus > 0, links = c.slow_links > 0 && scenario.cluster.network;
  if (gpus) out.slow_gpu_s = step(c.gpu_clock, 1);
  if (links) out.slow_link_s = step(1, c.link_bandwidth);
  if (gpus && links) out.both_s = step(c.gpu_clock, c.link_bandwidth);
  const double g = gpus ? out.odds.slow_gpu : 0, l = links ? out.odds.slow_link : 0;
  out.expected_s = (1 - g) * (1 - l) * base_s + g * (1 - l) * out.slow_gpu_s.value_or(0) +
                   (1 - g) * l * out.slow_link_s.value_or(0) + g * l * out.both_s.value_or(0);
  return out;
}

}  // namespace hpcsim

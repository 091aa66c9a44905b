#include "report/straggler_report.h"

namespace hpcsim {

std::vector<Metric> straggler_metrics(const StragglerSteps& s) {
  std::vector<Metric> m;  // grouped by prefix: the JSON nests each group once
  if (s.slow_gpu_s) m.push_back({"stragglers.p_slow_gpu", s.odds.slow_gpu, "ratio"});
  if (s.slow_link_s) m.push_back({"stragglers.p_slow_link", s.odds.slow_link, "ratio"});
  if (s.slow_gpu_s) m.push_back({"stragglers.step_time_s.slow_gpu", *s.slow_gpu_s, "s"});
  if (s.slow_link_s) m.push_back({"stragglers.step_time_s.slow_link", *s.slow_link_s, "s"});
  if (s.both_s) m.push_back({"stragglers.step_time_s.both", *s.both_s, "s"});
  m.push_back({"stragglers.step_time_s.expected", s.expected_s, "s"});
  m.push_back({"stragglers.step_time_ratio", s.expected_s / s.base_s, "ratio"});
  return m;
}

}  // namespace hpcsim

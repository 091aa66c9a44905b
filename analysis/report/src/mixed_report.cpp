#include "report/mixed_report.h"

namespace hpcsim {

std::vector<Metric> mixed_metrics(const MixedSteps& s) {
  std::vector<Metric> m;  // grouped by prefix: the JSON nests each group once
  m.push_back({"mixed.replicas.first", s.first.replicas, "count"});
  m.push_back({"mixed.replicas.second", s.second.replicas, "count"});
  m.push_back({"mixed.micro_batch.first", s.first.micro_batch, "count"});
  m.push_back({"mixed.micro_batch.second", s.second.micro_batch, "count"});
  m.push_back({"mixed.microbatches.first", s.first.microbatches, "count"});
  m.push_back({"mixed.microbatches.second", s.second.microbatches, "count"});
  m.push_back({"mixed.step_time_s.first", s.first.step_s, "s"});
  m.push_back({"mixed.step_time_s.second", s.second.step_s, "s"});
  m.push_back({"mixed.step_time_s.job", s.job_s, "s"});
  m.push_back({"mixed.global_batch", static_cast<double>(s.global_batch), "count"});
  m.push_back({"mixed.samples_per_s", s.samples_per_s, "1/s"});
  m.push_back({"mixed.idle_fraction", s.idle_fraction, "ratio"});
  if (s.speedup_vs_even) m.push_back({"mixed.speedup_vs_even", *s.speedup_vs_even, "ratio"});
  m.push_back({"mixed.fits_in_memory", s.first.fits_in_memory && s.second.fits_in_memory ? 1.0 : 0.0, "bool"});
  return m;
}

}  // namespace hpcsim

#include "workloads/campaign/trial_step_time.h"

#include "models/platform/cluster_config.h"

namespace hpcsim {

namespace {

// The trial's training job: the campaign's sections with its workload.KEY / parallelism.KEY values set,
// located at the campaign file's choice or range.
TrainingJobSpec trial_job(const CampaignSpec& spec, const TrialValues& values) {
  TrainingJobSpec job;
  job.workload = spec.workload;
  job.parallelism = spec.parallelism;
  job.steps = 1;
  job.nodes = spec.trial_nodes;
  job.where = spec.workload.loc();
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::string& name = spec.space.parameters[k].name;
    const std::size_t dot = name.find('.');
    if (dot == std::string::npos) continue;
    const std::string section = name.substr(0, dot);
    ConfigNode& target = section == "workload" ? job.workload : job.parallelism;
    target.set(name.substr(dot + 1), values[k].node);
  }
  return job;
}

std::vector<TrainingJobSpec> trial_jobs(const CampaignSpec& spec) {
  std::vector<TrainingJobSpec> jobs;
  for (const TrialValues& values : spec.trials) jobs.push_back(trial_job(spec, values));
  return jobs;
}

}  // namespace

TrialStepTimer::TrialStepTimer(const CampaignSpec& spec, const SpecCatalog& catalog,
                               const std::function<void(std::size_t, std::size_t)>& after_each)
    : timer_(std::make_unique<TrainingJobTimer>(parse_cluster(spec.cluster, catalog), catalog, trial_jobs(spec),
                                                after_each)) {}

double TrialStepTimer::seconds_per_step(std::int64_t trial, const std::vector<int>& node_ids) {
  // No nodes yet (the job's plan): the compact placement's, which is what estimate_s times (steps = 1).
  if (node_ids.empty()) return timer_->estimate_s(static_cast<int>(trial));
  return timer_->step_s(static_cast<int>(trial), node_ids);
}

}  // namespace hpcsim

#include "workloads/campaign/trial_step_time.h"

#include "workloads/scenario.h"
#include "workloads/training/simulate_scenario.h"

namespace hpcsim {

TrialStepTimer::TrialStepTimer(const CampaignSpec& spec, SpecCatalog catalog) : spec_(spec), catalog_(std::move(catalog)) {}

ConfigNode TrialStepTimer::scenario_root(std::int64_t trial) const {
  ConfigNode root = ConfigNode::make_map(spec_.cluster.loc());
  root.set("name", ConfigNode::make_scalar(spec_.name, spec_.cluster.loc()));
  ConfigNode cluster = spec_.cluster;
  cluster.set("nodes", ConfigNode::make_scalar(std::to_string(spec_.trial_nodes), cluster.loc()));
  root.set("cluster", std::move(cluster));
  root.set("workload", spec_.workload);
  root.set("parallelism", spec_.parallelism);
  // workload.KEY / parallelism.KEY search values, located at the campaign file's choice or range.
  const TrialValues& values = spec_.trials[static_cast<std::size_t>(trial)];
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::string& name = spec_.space.parameters[k].name;
    const std::size_t dot = name.find('.');
    if (dot == std::string::npos) continue;
    root.find(name.substr(0, dot))->set(name.substr(dot + 1), values[k].node);
  }
  return root;
}

double TrialStepTimer::seconds_per_step(std::int64_t trial, const std::vector<int>& /*node_ids: not yet*/) {
  std::string key;
  const TrialValues& values = spec_.trials[static_cast<std::size_t>(trial)];
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (spec_.space.parameters[k].sets_scenario_key()) key += values[k].text + '\n';
  }
  if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  const Scenario scenario = parse_scenario(scenario_root(trial), catalog_, spec_.name);
  const double seconds = simulate_scenario(scenario).result.step_time_s;
  cache_.emplace(key, seconds);
  return seconds;
}

}  // namespace hpcsim

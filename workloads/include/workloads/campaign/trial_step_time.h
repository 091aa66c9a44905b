#pragma once
// A campaign trial's seconds per training step: its scenario (the campaign's cluster with
// cluster.nodes = trial.nodes, the trial's workload and parallelism, the search values named
// workload.KEY / parallelism.KEY set in them) simulated once per distinct set of those values.
// The node ids the job got are not used yet: the step is simulated on a fresh cluster of trial.nodes
// nodes (a placement-aware timer can replace this class without touching the campaign driver).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "workloads/campaign/campaign.h"

namespace hpcsim {

class TrialStepTimer {
 public:
  // Keeps a reference to `spec`, which must outlive the timer.
  TrialStepTimer(const CampaignSpec& spec, SpecCatalog catalog);
  // ConfigError (at the campaign file's key) when the trial's scenario is invalid.
  double seconds_per_step(std::int64_t trial, const std::vector<int>& node_ids);
  // The trial's scenario as a config tree (for checks and messages).
  ConfigNode scenario_root(std::int64_t trial) const;

 private:
  const CampaignSpec& spec_;
  SpecCatalog catalog_;  // a copy: a path and a small table
  std::map<std::string, double> cache_;  // by the run-time values' texts
};

}  // namespace hpcsim

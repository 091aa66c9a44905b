#pragma once
// A campaign trial's seconds per training step on the nodes its job got: each trial is a training job
// (training_job_timer.h) whose workload and parallelism are the campaign's with the trial's search values
// named workload.KEY / parallelism.KEY set in them, timed on the campaign's whole cluster, so a trial
// spread over more leaves runs at what its placement allows. Identical trials share their simulations.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "configs/catalog.h"
#include "workloads/campaign/campaign.h"
#include "workloads/scheduling/training_job_timer.h"

namespace hpcsim {

class TrialStepTimer {
 public:
  // Checks and times every distinct trial once (on a compact placement): ConfigError at the campaign
  // file's key when a trial's scenario is invalid.
  // after_each(done, total) after each trial is checked, for a progress line.
  TrialStepTimer(const CampaignSpec& spec, const SpecCatalog& catalog,
                 const std::function<void(std::size_t, std::size_t)>& after_each = {});
  // On these nodes (trial.nodes of them); with none, on the compact placement (the plan before a start).
  double seconds_per_step(std::int64_t trial, const std::vector<int>& node_ids);
  // The leaf switch of each node of the campaign's cluster (the queue's topology-aware placement).
  const std::vector<int>& node_leaf() const { return timer_->node_leaf(); }

 private:
  std::unique_ptr<TrainingJobTimer> timer_;
};

}  // namespace hpcsim

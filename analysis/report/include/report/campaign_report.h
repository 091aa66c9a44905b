#pragma once
// What `hpcsim campaign` reports, on the campaign's clock (0 = the array's submission):
//   time to best = when the final best trial's last result was known (the end of its last job);
//   makespan = the last job's end; GPU-hours = sum over jobs of (end - start) x nodes x GPUs per node;
//   utilization = busy node-seconds / (cluster nodes x makespan); trials per rung = trials that finished
//   rung k (ASHA's n_k); the best trial = lowest loss among those at the highest rung any trial reached.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/metric.h"
#include "workloads/campaign/campaign.h"

namespace hpcsim {

struct CampaignSummary {
  std::int64_t trials = 0, jobs = 0, killed = 0;
  std::optional<std::int64_t> best_trial;
  std::optional<double> best_loss, time_to_best_s;
  std::string best_values;  // "lr=... batch=..."
  double makespan_s = 0, gpu_hours = 0, mean_wait_s = 0, utilization = 0;
  std::vector<std::int64_t> rung_budgets, trials_per_rung;
};

CampaignSummary summarize_campaign(const CampaignSpec& spec, const CampaignResult& result);
// The summary as metrics (store, show and JSON): trials_per_rung[k] an array.
std::vector<Metric> campaign_metrics(const CampaignSummary& summary);

// {"name", "summary": {...metrics}, "rungs": [{"budget_steps", "trials"}],
//  "trials": [{"id", "hyperparameters", "rung", "budget_steps", "loss", "known_s"}]}
std::string campaign_to_json(const CampaignSpec& spec, const CampaignResult& result, const CampaignSummary& summary);
std::string campaign_to_table(const CampaignSpec& spec, const CampaignResult& result, const CampaignSummary& summary);
// One row per job: trial, rung, steps, budget, submit, start, end, nodes, killed, loss.
std::string campaign_to_csv(const CampaignResult& result);

}  // namespace hpcsim

#pragma once
// What `hpcsim plan` prints and stores: the ranked candidates, the Pareto front of time to train against
// cost and energy, and the screening and simulation rates.
//
// JSON (a contract; keys may be added, none renamed):
//   {"plan": NAME, "candidates": [CANDIDATE, ...], "pareto": [CANDIDATE, ...], "figures": {...}}
// where each CANDIDATE has "node", "nodes", "network", "parallelism" {dp, tp, pp, micro_batch, microbatches,
// zero, schedule}, "time_to_train_s", "cost_usd", "energy_kwh", and "rank", "gpus", "step_time_s",
// "power_kw", "gpu_activity", "memory_per_gpu_gib" (screened), "screened_time_to_train_s", "screened_cost_usd", "simulated", "status", "meets_constraints",
// "source" (simulation or screen), "message".
#include <string>

#include "store/results_store.h"
#include "workloads/planning/capacity_plan.h"

namespace hpcsim {

std::string plan_to_json(const PlanSpec& plan, const PlanResult& result);
std::string plan_to_table(const PlanSpec& plan, const PlanResult& result);
// "screened N configurations in X s (R/s); simulated M in Y s (S/s)"
std::string plan_rates(const PlanResult& result);
// The plan as one stored run of kind `plan`: the front as parallel arrays pareto.*[i], the cheapest
// configuration meeting the constraints, and the rates.
RunRecord plan_record(const PlanSpec& plan, const PlanResult& result, std::string plan_text, std::string tool_version,
                      double wall_s);

}  // namespace hpcsim

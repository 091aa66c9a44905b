#pragma once
// A `kind: plan` file run as `hpcsim plan` runs it: read with its --set overrides, screened and simulated
// (workloads/planning/capacity_plan.h), and recorded as one stored run of kind plan.
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "store/results_store.h"
#include "workloads/planning/capacity_plan.h"

namespace hpcsim {

// The plan file read and checked; ConfigError for bad input. screen_only: simulate nothing in full. With
// --set overrides the plan's name carries them ("gpt3-plan [constraints.budget=5e6 USD]").
PlanSpec load_plan(const std::string& file, const std::vector<std::string>& overrides, const SpecCatalog& catalog,
                   bool screen_only);

struct PlanRun {
  PlanResult result;
  RunRecord record;  // the plan as one run of kind plan (report/plan_report.h)
};

// The plan simulated; its record is named as load_plan named it and holds the plan text that ran (the file
// with its --set overrides). after_each: run_capacity_plan's progress.
PlanRun run_plan(const PlanSpec& plan, const std::string& file, const std::vector<std::string>& overrides,
                 const SpecCatalog& catalog, const std::string& tool_version, const PlanProgress& after_each = {});

}  // namespace hpcsim

#include "sweep_run.h"

#include <iostream>

#include "commands.h"
#include "report/sweep_report.h"

namespace hpcsim::cli {

SweepPlan sweep_plan(const SweepOptions& o) { return plan_sweep(o.scenario, o.vary, SpecCatalog(config_root())); }

void print_sweep_results(const SweepOptions& o, const SweepPlan& plan) {
  const ResultsStore store(o.db, StoreAccess::read);
  const SweepResultsView view{plan.study, plan.study_id, plan.already_stored, o.db};
  std::cout << (o.format == "json" ? sweep_results_json(store, view) : sweep_results_table(store, view));
}

}  // namespace hpcsim::cli

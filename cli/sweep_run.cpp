#include "sweep_run.h"

#include <chrono>
#include <iostream>
#include <thread>

#include "commands.h"
#include "progress.h"
#include "configs/catalog.h"
#include "driver/prediction_interval.h"
#include "report/sweep_report.h"

namespace hpcsim::cli {

SweepPlan sweep_plan(const SweepOptions& o) {
  // Checking the axes' values takes milliseconds each: an axis of 100,000 values that all fail takes minutes.
  Progress progress("sweep", "values checked", 0, o.format);
  SweepPlan plan;
  try {
    plan = plan_sweep(o.scenario, o.vary, SpecCatalog(config_root()), [&](std::size_t done, std::size_t total) {
      progress.set_total(total);
      progress.show(done);
    });
  } catch (...) {
    progress.finish();  // the error starts a line of its own
    throw;
  }
  progress.finish();
  return plan;
}

bool run_points(const SweepOptions& o, const SweepPlan& plan, const std::function<void()>& after_each) {
  try {
    run_sweep_points(o.db, plan, SpecCatalog(config_root()), IntervalTable::load(config_root()), HPCSIM_VERSION,
                     after_each);
  } catch (const StoreDamaged&) {
    throw;  // bad input, not a failed point: the command exits 2
  } catch (const StoreError& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return false;
  }
  return true;
}

PointCounts count_points(const std::string& db, std::int64_t study_id) {
  PointCounts c;
  for (const StoredStudyPoint& p : ResultsStore(db, StoreAccess::read).study_points(study_id)) {
    if (p.status == PointStatus::pending) continue;
    ++c.done;
    if (p.status != PointStatus::ok) ++c.failed;
  }
  return c;
}

bool wait_for_other_sweeps(const SweepOptions& o, const SweepPlan& plan) {
  const std::size_t total = plan.study.points.size();
  for (bool noted = false;; noted = true) {
    const std::size_t left = total - count_points(o.db, plan.study_id).done;
    if (left == 0) return true;
    if (!noted) std::cerr << "note: waiting for " << left << " point(s) another sweep of this study is running\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!run_points(o, plan)) return false;
  }
}

void print_sweep_results(const SweepOptions& o, const SweepPlan& plan) {
  const ResultsStore store(o.db, StoreAccess::read);
  const SweepResultsView view{plan.study, plan.study_id, plan.already_stored, o.db};
  std::cout << (o.format == "json" ? sweep_results_json(store, view) : sweep_results_table(store, view));
}

}  // namespace hpcsim::cli

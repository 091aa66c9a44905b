// A sweep's plan, its study in the store, and its points run and stored (the parts `hpcsim sweep` on one
// machine and under mpirun share).
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "driver/scenario_run.h"
#include "driver/sweep.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

SweepPlan plan_sweep(const std::string& scenario_path, const std::vector<std::string>& vary, const SpecCatalog& catalog,
                     const std::function<void(std::size_t, std::size_t)>& checked) {
  std::vector<SweepAxis> axes;
  for (const std::string& v : vary) {
    axes.push_back(parse_vary(v));
    // Two axes of one key: each point would set it twice and run the last value, while its row is labelled
    // with both (the label would name a value that did not run).
    for (std::size_t k = 0; k + 1 < axes.size(); ++k) {
      if (axes[k].key == axes.back().key) {
        throw std::invalid_argument("--vary " + v + ": " + axes.back().key + " is varied twice; give its values in one --vary (" +
                                    axes.back().key + "=V1,V2,...)");
      }
    }
  }
  const ConfigNode base = load_config(scenario_path, {});
  sweepable_kind(base);
  // A key no value of its axis can set (a misspelt key) is a bad flag; a bad combination is a point. A value
  // tried before is not tried again; each try loads the scenario (milliseconds), so an axis of many values
  // that all fail is long: `checked` hears each value tried (the command's progress line).
  std::size_t total = 0, done = 0;
  for (const SweepAxis& axis : axes) total += axis.values.size();
  for (const SweepAxis& axis : axes) {
    std::optional<ConfigError> first;
    bool any = false;
    std::set<std::string> tried;
    for (const std::string& value : axis.values) {
      if (checked) checked(++done, total);
      if (!tried.insert(value).second) continue;
      try {
        check_sweep_scenario(load_what_if(scenario_path, {axis.key + "=" + value}, "--vary", nullptr), catalog);
        any = true;
        break;
      } catch (const ConfigError& e) {
        if (!first) first = e;
      }
    }
    if (!any) throw *first;
  }
  SweepPlan plan;
  plan.scenario_path = scenario_path;
  plan.name = std::filesystem::path(scenario_path).stem().string();
  plan.study = sweep_study(plan.name, to_yaml_text(base), axes);
  // What a changed model drops, said once for each value of a model axis.
  for (const SweepAxis& axis : axes) {
    if (axis.key != "workload.model") continue;
    for (const std::string& value : axis.values) {
      std::vector<std::string> notes, sets;
      for (const SweepAxis& other : axes) sets.push_back(other.key + "=" + (&other == &axis ? value : other.values.front()));
      try {
        load_what_if(scenario_path, sets, "--vary", &notes);
      } catch (const ConfigError&) {
        continue;  // the point says why
      }
      for (std::string& n : notes) plan.notes.push_back(std::move(n));
    }
  }
  return plan;
}

void open_study(SweepPlan& plan, ResultsStore& store) {
  plan.study_id = store.find_or_record_study(plan.study);
  plan.pending.clear();
  plan.already_stored = 0;
  for (const StoredStudyPoint& p : store.study_points(plan.study_id)) {
    if (p.status == PointStatus::pending) {
      plan.pending.push_back(static_cast<std::size_t>(p.index));
    } else {
      ++plan.already_stored;
    }
  }
}

void claim_all_points(SweepPlan& plan, ResultsStore& store) {
  plan.pending = store.claim_study_points(plan.study_id, plan.study.points.size());
}

RunRecord simulate_point(const SweepPlan& plan, std::size_t index, const SpecCatalog& catalog,
                         const IntervalTable& intervals, const std::string& tool_version) {
  return run_sweep_point(plan.scenario_path, plan.name, plan.study.points[index], catalog, intervals, tool_version);
}

namespace {

// Completes point `index` one way or the other; a point another process stored meanwhile (its claim was taken
// for abandoned) keeps that process's run.
void complete_point(const std::function<void()>& store_it) {
  try {
    store_it();
  } catch (const PointStoredAlready&) {
  }
}

// The stored ok run of point `index`'s resolved scenario, if any; none for an invalid point.
std::optional<std::int64_t> stored_run_of(const ResultsStore& store, const SweepPlan& plan, std::size_t index) {
  std::vector<std::string> sets;
  for (const auto& [key, value] : plan.study.points[index].values) sets.push_back(key + "=" + value);
  try {
    return store.find_by_hash(content_hash(to_yaml_text(load_what_if(plan.scenario_path, sets, "--vary", nullptr))));
  } catch (const ConfigError&) {
    return std::nullopt;  // an invalid point: simulate_point records why
  }
}

}  // namespace

void store_point(ResultsStore& store, const SweepPlan& plan, std::size_t index, const RunRecord& record) {
  const std::optional<std::int64_t> same =
      record.status == "ok" ? store.find_by_hash(content_hash(record.scenario_text)) : std::nullopt;
  complete_point([&] {
    if (same) {
      store.link_study_point(plan.study_id, index, *same, PointStatus::ok);
    } else {
      store.record_study_point(plan.study_id, index, record);
    }
  });
}

void run_sweep_points(const std::string& db, const SweepPlan& plan, const SpecCatalog& catalog,
                      const IntervalTable& intervals, const std::string& tool_version,
                      const std::function<void()>& after_each) {
  ResultsStore store(db);
  for (;;) {
    const std::vector<std::size_t> claimed = store.claim_study_points(plan.study_id, 1);
    if (claimed.empty()) return;
    const std::size_t i = claimed.front();
    // A point whose resolved scenario is stored already is linked to that run, not simulated again.
    if (const std::optional<std::int64_t> same = stored_run_of(store, plan, i)) {
      complete_point([&] { store.link_study_point(plan.study_id, i, *same, PointStatus::ok); });
    } else {
      store_point(store, plan, i, simulate_point(plan, i, catalog, intervals, tool_version));
    }
    if (after_each) after_each();
  }
}

}  // namespace hpcsim

#pragma once
// `hpcsim sweep`: a scenario run at every point of the cross product of varied keys, each point a run in
// the store, so a sweep started again resumes its study and runs only the points still pending.
//   --vary cluster.network=ib-hdr,eth-100g-tcp   values as written
//   --vary cluster.nodes=1..64x2                 1, 2, 4, ..., 64 (times 2 while <= 64)
//   --vary workload.batch_per_gpu=8..32+8        8, 16, 24, 32 (plus 8)
//   --vary cluster.nodes=1..4                    1, 2, 3, 4
//   --vary workload.grid=[256,256,256],[512,512,512]   lists and maps whole (commas inside brackets stay)
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/prediction_interval.h"
#include "store/results_store.h"
#include "store/study.h"
#include "configs/catalog.h"
#include "configs/config_node.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

// "KEY=V1,V2,..." or a range; std::invalid_argument with a message naming what is wrong.
SweepAxis parse_vary(const std::string& text);

// The kind of a scenario a sweep can run (training, serve or mpi); ConfigError at `kind` for any other.
ScenarioKind sweepable_kind(const ConfigNode& root);
// Parses a sweepable scenario as its kind would run it; ConfigError where it is invalid.
void check_sweep_scenario(const ConfigNode& root, const SpecCatalog& catalog);

// The study of every combination, the first axis varying slowest. Its name is the scenario's with the axes.
Study sweep_study(const std::string& scenario_name, const std::string& base_scenario_text,
                  const std::vector<SweepAxis>& axes);

// Simulates one point: the scenario file with the point's values set as --set would. A point whose
// scenario is invalid gives an "error" run with the reason as its message; one that does not fit in GPU
// memory an "oom" run. Never throws for a bad point.
RunRecord run_sweep_point(const std::string& scenario_path, const std::string& scenario_name, const StudyPoint& point,
                          const SpecCatalog& catalog, const IntervalTable& intervals, const std::string& tool_version);

// A sweep ready to run: the study of the flags' cross product and, once open_study has read the store,
// the points still pending. Store-free until then, so every MPI rank builds the same one.
struct SweepPlan {
  std::string scenario_path;
  std::string name;                  // the scenario file's stem
  Study study;
  std::int64_t study_id = 0;
  std::vector<std::size_t> pending;  // point indices still to run, in order (open_study; claim_all_points)
  std::size_t already_stored = 0;    // points complete before this run
  std::vector<std::string> notes;    // for stderr: what a varied workload.model drops of the file's sizes
};

// The study of `vary`'s cross product over the scenario at `scenario_path`. ConfigError for a bad scenario or
// a key no value of its axis can set; std::invalid_argument for a malformed --vary. `checked` (optional) hears
// (values checked, of all axes' values) while the axes' values are tried.
SweepPlan plan_sweep(const std::string& scenario_path, const std::vector<std::string>& vary, const SpecCatalog& catalog,
                     const std::function<void(std::size_t, std::size_t)>& checked = {});
// Finds the study in the store (a restart) or records it, and fills study_id, pending (every pending point,
// claimed by another sweep or not) and already_stored.
void open_study(SweepPlan& plan, ResultsStore& store);
// Claims for this process every pending point no live process claimed (ResultsStore::claim_study_points);
// pending becomes those. For a runner that hands the points out itself (MPI's rank 0).
void claim_all_points(SweepPlan& plan, ResultsStore& store);
// Point `index` simulated: its run record (an invalid point's says why).
RunRecord simulate_point(const SweepPlan& plan, std::size_t index, const SpecCatalog& catalog,
                         const IntervalTable& intervals, const std::string& tool_version);
// Stores point `index`, which this process claimed: linked to a stored ok run of the same resolved scenario
// when there is one, else with `record`. A point another process stored meanwhile is left as it is.
void store_point(ResultsStore& store, const SweepPlan& plan, std::size_t index, const RunRecord& record);
// Claims the study's points one at a time and runs and stores each before claiming the next, until none is
// left to claim: several processes (--jobs, or sweeps of one study started at once) share the points, and a
// point another live process claimed is left to it. A point whose resolved scenario is stored already is
// linked to that run instead of simulated again; after_each runs after each point is stored. StoreError
// when the store fails.
void run_sweep_points(const std::string& db, const SweepPlan& plan, const SpecCatalog& catalog,
                      const IntervalTable& intervals, const std::string& tool_version,
                      const std::function<void()>& after_each = {});

}  // namespace hpcsim

#pragma once
// `hpcsim sweep`: a scenario run at every point of the cross product of varied keys, each point a run in
// the store, so a sweep started again resumes its study and runs only the points still pending.
//   --vary cluster.network=ib-hdr,eth-100g-tcp   values as written
//   --vary cluster.nodes=1..64x2                 1, 2, 4, ..., 64 (times 2 while <= 64)
//   --vary workload.batch_per_gpu=8..32+8        8, 16, 24, 32 (plus 8)
//   --vary cluster.nodes=1..4                    1, 2, 3, 4
#include <string>
#include <vector>

#include "analysis/prediction_interval.h"
#include "analysis/results_store.h"
#include "analysis/study.h"
#include "configs/catalog.h"

namespace hpcsim {

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

// "KEY=V1,V2,..." or a range; std::invalid_argument with a message naming what is wrong.
SweepAxis parse_vary(const std::string& text);

// The study of every combination, the first axis varying slowest. Its name is the scenario's with the axes.
Study sweep_study(const std::string& scenario_name, const std::string& base_scenario_text,
                  const std::vector<SweepAxis>& axes);

// Simulates one point: the scenario file with the point's values set as --set would. A point whose
// scenario is invalid gives an "error" run with the reason as its message; one that does not fit in GPU
// memory an "oom" run. Never throws for a bad point.
RunRecord run_sweep_point(const std::string& scenario_path, const std::string& scenario_name, const StudyPoint& point,
                          const SpecCatalog& catalog, const IntervalTable& intervals, const std::string& tool_version);

}  // namespace hpcsim

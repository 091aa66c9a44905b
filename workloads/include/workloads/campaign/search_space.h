#pragma once
// A hyperparameter search space and the trials drawn from it (grid or seeded random).
//   lr: {log_uniform: [1.0e-4, 1.0e-1], optimum: 3.0e-3, points: 4}
//   dropout: {uniform: [0.0, 0.5]}
//   workload.batch_per_gpu: {choice: [128, 256], penalties: [0.0, 0.02]}
// A name with a dot (workload.KEY, parallelism.KEY) is also set in the trial's scenario, so it changes the
// trial's run time; other names only shape the learning curve (learning_curve.h).
// optimum: where the curve is best (default: the range's midpoint, geometric for log_uniform);
// points: grid values over the range (default 3, ends included); penalties: per choice, added to the
// curve's misfit (default 0: the choice only changes the run time).
#include <cstdint>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

enum class SpaceKind { uniform, log_uniform, choice };

struct SearchParameter {
  std::string name;
  SpaceKind kind = SpaceKind::uniform;
  double low = 0, high = 1;                // uniform, log_uniform
  double optimum = 0;                      // uniform, log_uniform
  int points = 3;                          // grid values of a uniform or log_uniform range
  std::vector<ConfigNode> choices;         // choice: the scalars as written (kept for their locations)
  std::vector<double> penalties;           // choice: one per choice
  SourceLoc loc;                           // where its distribution is written
  // The position of a value in [0, 1] along the range (log scale for log_uniform).
  double position(double value) const;
  bool sets_scenario_key() const { return name.find('.') != std::string::npos; }
};

struct SearchSpace {
  std::vector<SearchParameter> parameters;  // in file order
};

// One trial's values, in the space's parameter order.
struct ParameterValue {
  double number = 0;     // uniform, log_uniform: the value; choice: the choice's index
  std::string text;      // as set in a scenario and printed (a choice as written; a draw in shortest form)
  ConfigNode node;       // a scalar carrying where the value came from (the choice, or the parameter)
};
using TrialValues = std::vector<ParameterValue>;

const Schema& search_parameter_schema();
// ConfigError at the offending key: no or several distributions, a range not low < high, a log range
// not above 0, an optimum outside the range, penalties not one per choice.
SearchSpace parse_search_space(const ConfigNode& space);

// Every combination, the last parameter varying fastest (uniform and log_uniform: `points` values over
// the range, ends included).
std::vector<TrialValues> grid_trials(const SearchSpace& space);
// Trial `index` of a seeded random search: each value a hash of (seed, index, parameter), so trial i is
// the same whatever the number of trials.
TrialValues random_trial(const SearchSpace& space, std::uint64_t seed, std::int64_t index);

// "lr=0.0031 workload.batch_per_gpu=256": for tables and logs.
std::string describe(const SearchSpace& space, const TrialValues& values);

}  // namespace hpcsim

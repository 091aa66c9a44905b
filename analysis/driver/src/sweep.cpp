#include "driver/sweep.h"

#include "configs/count_limits.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "driver/scenario_run.h"
#include "driver/training_scenario_run.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "workloads/hpc/mpi_scenario.h"
#include "workloads/serving/serve_scenario.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

namespace {

// A number as a scenario value: integers without a decimal point.
std::string value_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream out;
  out.precision(12);
  out << v;
  return out.str();
}

double range_number(const std::string& text, const std::string& whole) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) throw std::invalid_argument("--vary " + whole + ": '" + text + "' is not a number");
  // stod reads "nan" and "inf": a NaN end made the range empty and the sweep crashed (found by tests/fuzz).
  if (!std::isfinite(v)) throw std::invalid_argument("--vary " + whole + ": '" + text + "' is not a finite number");
  return v;
}

// "A..B", "A..BxF" or "A..B+S" expanded; the values never pass B.
std::vector<std::string> expand_range(const std::string& range, const std::string& whole) {
  const std::size_t dots = range.find("..");
  const std::string from = range.substr(0, dots);
  std::string rest = range.substr(dots + 2);
  char op = '+';
  double step = 1;
  if (const std::size_t at = rest.find_first_of("x+", 1); at != std::string::npos) {
    op = rest[at];
    step = range_number(rest.substr(at + 1), whole);
    rest = rest.substr(0, at);
  }
  const double a = range_number(from, whole), b = range_number(rest, whole);
  if (b < a) throw std::invalid_argument("--vary " + whole + ": the range ends before it starts");
  if (op == '+' && !(step > 0)) throw std::invalid_argument("--vary " + whole + ": a step must be positive");
  if (op == 'x' && (!(step > 1) || !(a > 0))) {
    throw std::invalid_argument("--vary " + whole + ": a geometric range needs a start above 0 and a factor above 1");
  }
  std::vector<std::string> values;
  for (double v = a; v <= b * (1 + 1e-12); v = op == 'x' ? v * step : v + step) {
    values.push_back(value_text(v));
    if (static_cast<double>(values.size()) > count_limit(CountLimit::sweep_points)) {  // counted, not listed
      const double count = op == 'x' ? std::floor(std::log(b / a) / std::log(step)) + 1 : std::floor((b - a) / step) + 1;
      check_count(CountLimit::sweep_points, count, SourceLoc{"--vary " + whole}, "the range");
    }
  }
  return values;
}

}  // namespace

ScenarioKind sweepable_kind(const ConfigNode& root) {
  const ScenarioKind kind = runnable_scenario_kind(root);
  if (kind != ScenarioKind::training && kind != ScenarioKind::mpi && kind != ScenarioKind::serve) {
    const ConfigNode* k = root.find("kind");
    throw ConfigError(k != nullptr ? k->loc() : root.loc(), "hpcsim sweep runs training, serve and mpi scenarios");
  }
  return kind;
}

void check_sweep_scenario(const ConfigNode& root, const SpecCatalog& catalog) {
  switch (sweepable_kind(root)) {
    case ScenarioKind::mpi: parse_mpi_scenario(root, catalog, "check"); return;
    case ScenarioKind::serve: parse_serve_scenario(root, catalog, "check"); return;
    default: parse_training_scenario(root, catalog, "check"); return;
  }
}

SweepAxis parse_vary(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw std::invalid_argument("--vary " + text + ": expected KEY=V1,V2,... or KEY=A..B[xF|+S]");
  }
  SweepAxis axis{text.substr(0, eq), {}};
  const std::string list = text.substr(eq + 1);
  std::size_t start = 0;
  // Values are split at commas outside brackets, so a value may be a YAML list or map ([256,256,256]).
  const auto next_comma = [&](std::size_t from) {
    int depth = 0;
    for (std::size_t i = from; i < list.size(); ++i) {
      if (list[i] == '[' || list[i] == '{') ++depth;
      if ((list[i] == ']' || list[i] == '}') && depth > 0) --depth;
      if (list[i] == ',' && depth == 0) return i;
    }
    return list.size();
  };
  while (start <= list.size()) {
    const std::size_t comma = next_comma(start);
    const std::string item = list.substr(start, comma - start);
    if (item.empty()) throw std::invalid_argument("--vary " + text + ": an empty value");
    if (item.find("..") != std::string::npos) {
      for (std::string& v : expand_range(item, text)) axis.values.push_back(std::move(v));
    } else {
      axis.values.push_back(item);
    }
    start = comma + 1;
  }
  return axis;
}

Study sweep_study(const std::string& scenario_name, const std::string& base_scenario_text,
                  const std::vector<SweepAxis>& axes) {
  Study study;
  study.name = scenario_name + " sweep";
  for (const SweepAxis& a : axes) study.name += " " + a.key + "=" + std::to_string(a.values.size()) + " values";
  study.base_scenario_text = base_scenario_text;
  std::vector<std::size_t> at(axes.size(), 0);
  std::size_t total = axes.empty() ? 0 : 1;
  double points = total;
  std::string sizes, flags;
  for (const SweepAxis& a : axes) {
    points *= static_cast<double>(a.values.size());
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(a.values.size());
    flags += (flags.empty() ? "--vary " : " --vary ") + a.key;
  }
  check_count(CountLimit::sweep_points, points, SourceLoc{flags}, "the sweep (" + sizes + " values)");
  for (const SweepAxis& a : axes) total *= a.values.size();
  for (std::size_t n = 0; n < total; ++n) {
    StudyPoint point;
    for (std::size_t k = 0; k < axes.size(); ++k) point.values.emplace_back(axes[k].key, axes[k].values[at[k]]);
    study.points.push_back(std::move(point));
    for (std::size_t k = axes.size(); k-- > 0;) {  // the last axis fastest
      if (++at[k] < axes[k].values.size()) break;
      at[k] = 0;
    }
  }
  for (const SweepAxis& a : axes) study.parameters.push_back(StudyParameter{a.key, a.values});
  return study;
}

namespace {

// A point that could not run: stored with status error and the reason, so the sweep goes on.
RunRecord failed_point(const std::string& name, ScenarioKind kind, const std::string& text,
                       const std::string& tool_version, const std::string& why) {
  RunRecord record;
  record.report = Report{name, std::string(to_string(kind)), {}, std::nullopt};
  record.scenario_text = text;
  record.tool_version = tool_version;
  record.status = "error";
  record.message = why;
  return record;
}

}  // namespace

RunRecord run_sweep_point(const std::string& scenario_path, const std::string& scenario_name, const StudyPoint& point,
                          const SpecCatalog& catalog, const IntervalTable& intervals,
                          const std::string& tool_version) {
  std::vector<std::string> sets;
  std::string label;
  for (const auto& [key, value] : point.values) {
    sets.push_back(key + "=" + value);
    label += (label.empty() ? "" : ", ") + key + "=" + value;
  }
  std::string name = what_if_name(scenario_name, sets);
  ConfigNode root;
  std::string text;
  ScenarioKind kind = ScenarioKind::training;
  try {
    root = load_what_if(scenario_path, sets, "--vary", nullptr);
    text = to_yaml_text(root);
    if (const ConfigNode* file_name = root.find("name"); file_name != nullptr && file_name->is_scalar()) {
      name = what_if_name(file_name->as_string(), sets);  // an invalid point too is named as the file names it
    }
    kind = sweepable_kind(root);
    if (kind != ScenarioKind::training) {  // mpi, serve: run as `hpcsim run` / `hpcsim serve` run them
      LoadedScenario loaded{root, kind, name, {}};
      return run_scenario(loaded, ScenarioRequest{}, catalog, intervals, tool_version).record;
    }
    TrainingScenario scenario = parse_training_scenario(root, catalog, scenario_name);
    // Named after what it ran: the file's name with the point's values, as a what-if of `hpcsim run --set`.
    name = scenario.name = what_if_name(scenario.name, sets);
    TrainingScenarioRun run = run_training_scenario(scenario, root, intervals, tool_version);
    return std::move(run.record);
  } catch (const ConfigError& e) {
    return failed_point(name, kind, text.empty() ? "# " + label + "\n" : text, tool_version, e.what());
  } catch (const std::invalid_argument& e) {
    // What `hpcsim run` and `hpcsim serve` report as bad input (exit 2) of the scenario, e.g. a max_rate_within
    // search whose requests are too few to load the endpoint: this point fails, the sweep goes on (fuzz seed
    // 1207103 met it as an internal error of the whole sweep).
    return failed_point(name, kind, text.empty() ? "# " + label + "\n" : text, tool_version, e.what());
  }
}

}  // namespace hpcsim

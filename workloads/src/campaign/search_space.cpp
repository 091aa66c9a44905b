#include "workloads/campaign/search_space.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <string>

#include "configs/config_error.h"
#include "sim-core/random.h"

namespace hpcsim {

namespace {

// Shortest text that reads back as the same double: identical output for identical draws.
std::string shortest(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// A range's value at position u in [0, 1] (log scale for log_uniform).
double at_position(const SearchParameter& p, double u) {
  if (p.kind == SpaceKind::log_uniform) return std::exp(std::log(p.low) + u * (std::log(p.high) - std::log(p.low)));
  return p.low + u * (p.high - p.low);
}

// A drawn value is located at its parameter's range, for messages about the trial's scenario.
// Draws are rounded to 4 significant digits, as a person would write them (ends stay exact).
double four_digits(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return std::strtod(buffer, nullptr);
}

ParameterValue range_value(const SearchParameter& p, double value) {
  ParameterValue v;
  v.number = std::clamp(four_digits(value), p.low, p.high);
  v.text = shortest(v.number);
  v.node = ConfigNode::make_scalar(v.text, p.loc);
  return v;
}

ParameterValue choice_value(const SearchParameter& p, std::size_t index) {
  ParameterValue v;
  v.number = static_cast<double>(index);
  v.text = p.choices[index].text();
  v.node = p.choices[index];
  return v;
}

}  // namespace

double SearchParameter::position(double value) const {
  if (kind == SpaceKind::log_uniform) return (std::log(value) - std::log(low)) / (std::log(high) - std::log(low));
  return (value - low) / (high - low);
}

const Schema& search_parameter_schema() {
  static const Schema schema = Schema::map({
      optional("uniform", Schema::list(Schema::number()), "a range [low, high] drawn on a linear scale",
               "none: give one of uniform, log_uniform, choice"),
      optional("log_uniform", Schema::list(Schema::number()), "a range [low, high] above 0 drawn on a log scale",
               "none: give one of uniform, log_uniform, choice"),
      optional("choice", Schema::list(Schema::string()).non_empty(), "values to choose from, as written",
               "none: give one of uniform, log_uniform, choice"),
      optional("optimum", Schema::number(), "ranges: where the learning curve is best, within the range",
               "the range's midpoint (geometric for log_uniform)"),
      optional("points", Schema::integer().at_least(2), "ranges: grid values over the range, ends included", "3"),
      optional("penalties", Schema::list(Schema::number().at_least(0)),
               "choice: misfit added per choice, one per choice", "0 each: the choice only changes the run time"),
  });
  return schema;
}

SearchSpace parse_search_space(const ConfigNode& space) {
  SearchSpace out;
  for (const ConfigNode::Entry& entry : space.entries()) {
    const ConfigNode& spec = entry.value;
    search_parameter_schema().validate(spec);
    SearchParameter p;
    p.name = entry.key;
    const ConfigNode* distribution = nullptr;
    for (const auto& [kind, key] : {std::pair{SpaceKind::uniform, "uniform"}, std::pair{SpaceKind::log_uniform, "log_uniform"},
                                    std::pair{SpaceKind::choice, "choice"}}) {
      const ConfigNode* found = spec.find(key);
      if (found == nullptr) continue;
      if (distribution != nullptr) {
        throw ConfigError(found->loc(), "parameter '" + p.name + "' has two distributions; give one of uniform, log_uniform, choice");
      }
      distribution = found;
      p.kind = kind;
      p.loc = found->loc();
    }
    if (distribution == nullptr) {
      throw ConfigError(spec.loc(), "parameter '" + p.name + "' needs a distribution: uniform, log_uniform or choice");
    }
    if (p.kind == SpaceKind::choice) {
      p.choices = distribution->items();
      if (const ConfigNode* penalties = spec.find("penalties")) {
        if (penalties->items().size() != p.choices.size()) {
          throw ConfigError(penalties->loc(), "penalties: one per choice (" + std::to_string(p.choices.size()) + ")");
        }
        for (const ConfigNode& x : penalties->items()) p.penalties.push_back(x.as_number());
      } else {
        p.penalties.assign(p.choices.size(), 0.0);
      }
      for (const char* key : {"optimum", "points"}) {
        if (const ConfigNode* bad = spec.find(key)) throw ConfigError(bad->loc(), std::string(key) + " applies to uniform and log_uniform ranges, not choice");
      }
    } else {
      if (const ConfigNode* bad = spec.find("penalties")) throw ConfigError(bad->loc(), "penalties applies to choice, not ranges");
      const std::vector<ConfigNode>& bounds = distribution->items();
      if (bounds.size() != 2) throw ConfigError(distribution->loc(), "a range is [low, high]");
      p.low = bounds[0].as_number();
      p.high = bounds[1].as_number();
      if (!(p.low < p.high)) throw ConfigError(distribution->loc(), "a range needs low < high");
      // Draws and the learning curve work with high - low; past a double's range it is inf and every loss NaN.
      if (!std::isfinite(p.high - p.low)) {
        throw ConfigError(distribution->loc(), "a range's width high - low must be a finite number (at most ~1.8e308)");
      }
      if (p.kind == SpaceKind::log_uniform && p.low <= 0) {
        throw ConfigError(bounds[0].loc(), "a log_uniform range must lie above 0");
      }
      p.optimum = at_position(p, 0.5);
      if (const ConfigNode* optimum = spec.find("optimum")) {
        p.optimum = optimum->as_number();
        if (p.optimum < p.low || p.optimum > p.high) throw ConfigError(optimum->loc(), "the optimum must lie in the range");
      }
      p.points = static_cast<int>(spec.get_int_or("points", 3));
    }
    out.parameters.push_back(std::move(p));
  }
  return out;
}

std::vector<TrialValues> grid_trials(const SearchSpace& space) {
  // Each parameter's grid values, then the product with the last parameter varying fastest.
  std::vector<std::vector<ParameterValue>> axes;
  for (const SearchParameter& p : space.parameters) {
    std::vector<ParameterValue> axis;
    if (p.kind == SpaceKind::choice) {
      for (std::size_t i = 0; i < p.choices.size(); ++i) axis.push_back(choice_value(p, i));
    } else {
      for (int i = 0; i < p.points; ++i) {
        // The ends exactly, not through exp(log(x)).
        const double value = i == 0 ? p.low : i == p.points - 1 ? p.high : at_position(p, double(i) / (p.points - 1));
        axis.push_back(range_value(p, value));
      }
    }
    axes.push_back(std::move(axis));
  }
  std::vector<TrialValues> out{TrialValues{}};
  for (const std::vector<ParameterValue>& axis : axes) {
    std::vector<TrialValues> next;
    for (const TrialValues& prefix : out) {
      for (const ParameterValue& v : axis) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    out = std::move(next);
  }
  return out;
}

TrialValues random_trial(const SearchSpace& space, std::uint64_t seed, std::int64_t index) {
  TrialValues values;
  for (std::size_t k = 0; k < space.parameters.size(); ++k) {
    const SearchParameter& p = space.parameters[k];
    const double u = uniform01(seeded_key({seed, static_cast<std::uint64_t>(index), k, 0x5ea4c4ULL}));
    if (p.kind == SpaceKind::choice) {
      const auto i = std::min(p.choices.size() - 1, static_cast<std::size_t>(u * static_cast<double>(p.choices.size())));
      values.push_back(choice_value(p, i));
    } else {
      values.push_back(range_value(p, at_position(p, u)));
    }
  }
  return values;
}

std::string describe(const SearchSpace& space, const TrialValues& values) {
  std::string out;
  for (std::size_t k = 0; k < values.size(); ++k) {
    out += (k > 0 ? " " : "") + space.parameters[k].name + "=" + values[k].text;
  }
  return out;
}

}  // namespace hpcsim

#include "workloads/scenario_kind.h"

#include <array>
#include <string>
#include <utility>

#include "configs/config_error.h"

namespace hpcsim {

namespace {

// The one name table: to_string, the schema and the parser all read it.
constexpr std::array<std::pair<ScenarioKind, std::string_view>, 4> kKindNames = {{
    {ScenarioKind::training, "training"},
    {ScenarioKind::schedule, "schedule"},
    {ScenarioKind::serve, "serve"},
    {ScenarioKind::plan, "plan"},
}};

}  // namespace

std::string_view to_string(ScenarioKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "unknown";
}

const Schema& scenario_kind_schema() {
  static const Schema schema = [] {
    std::vector<std::string> names;
    for (const auto& entry : kKindNames) names.emplace_back(entry.second);
    return Schema::one_of(std::move(names));
  }();
  return schema;
}

ScenarioKind scenario_kind(const ConfigNode& root) {
  const ConfigNode* key = root.is_map() ? root.find("kind") : nullptr;
  if (key == nullptr) return ScenarioKind::training;
  scenario_kind_schema().validate(*key);  // an unknown name is an error at the key, with the choices
  const std::string name = key->as_string();
  for (const auto& [kind, kind_name] : kKindNames)
    if (kind_name == name) return kind;
  throw ConfigError(key->loc(), "unknown scenario kind '" + name + "'");  // unreachable after validate
}

bool is_built(ScenarioKind kind) { return kind == ScenarioKind::training; }

ScenarioKind runnable_scenario_kind(const ConfigNode& root) {
  const ScenarioKind kind = scenario_kind(root);
  if (!is_built(kind)) {
    throw ConfigError(root.at("kind").loc(), "scenario kind '" + std::string(to_string(kind)) +
                                                 "' is not built yet; only 'training' scenarios can be run");
  }
  return kind;
}

}  // namespace hpcsim

#include "workloads/scenario/scenario_kind.h"

#include <array>
#include <string>
#include <utility>

#include "configs/config_error.h"
#include "configs/enum_names.h"

namespace hpcsim {

namespace {

// The one name table: to_string, the schema and the parser all read it.
constexpr EnumNames<ScenarioKind, 5> kKindNames{{{
    {ScenarioKind::training, "training"},
    {ScenarioKind::schedule, "schedule"},
    {ScenarioKind::serve, "serve"},
    {ScenarioKind::plan, "plan"},
    {ScenarioKind::mpi, "mpi"},
}}};

}  // namespace

std::string_view to_string(ScenarioKind kind) { return kKindNames.name(kind); }

const Schema& scenario_kind_schema() {
  static const Schema schema = Schema::one_of(kKindNames.names());
  return schema;
}

ScenarioKind scenario_kind(const ConfigNode& root) {
  const ConfigNode* key = root.is_map() ? root.find("kind") : nullptr;
  if (key == nullptr) return ScenarioKind::training;
  scenario_kind_schema().validate(*key);  // an unknown name is an error at the key, with the choices
  const std::string name = key->as_string();
  if (const std::optional<ScenarioKind> kind = kKindNames.parse(name)) return *kind;
  throw ConfigError(key->loc(), "unknown scenario kind '" + name + "'");  // unreachable after validate
}

bool is_built(ScenarioKind kind) { return kind != ScenarioKind::schedule; }

ScenarioKind runnable_scenario_kind(const ConfigNode& root) {
  const ScenarioKind kind = scenario_kind(root);
  if (!is_built(kind)) {
    throw ConfigError(root.at("kind").loc(), "scenario kind '" + std::string(to_string(kind)) +
                                                 "' is not built yet; 'training', 'serve' and 'mpi' scenarios can be run (and 'plan' files planned; job lists run with hpcsim schedule)");
  }
  return kind;
}

}  // namespace hpcsim

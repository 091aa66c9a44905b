// The scenario kinds `hpcsim run` dispatches on (workloads/scenario/scenario_kind.h), tested here beside the store
// and reports that take any kind's metric list.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/scenario_kind.h"

using hpcsim::ConfigError;
using hpcsim::ScenarioKind;
using hpcsim::parse_config_text;

namespace {

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a scenario without kind: is a training scenario", "[analysis][kind]") {
  CHECK(hpcsim::scenario_kind(parse_config_text("name: x\n", "s.yaml")) == ScenarioKind::training);
  CHECK(hpcsim::scenario_kind(parse_config_text("kind: training\n", "s.yaml")) == ScenarioKind::training);
  CHECK(hpcsim::runnable_scenario_kind(parse_config_text("name: x\n", "s.yaml")) == ScenarioKind::training);
  CHECK(hpcsim::to_string(ScenarioKind::serve) == "serve");
}

TEST_CASE("a kind not built yet is refused at its key", "[analysis][kind]") {
  for (const char* kind : {"schedule"}) {
    const auto root = parse_config_text(std::string("name: x\nkind: ") + kind + "\n", "later.yaml");
    CHECK_FALSE(hpcsim::is_built(hpcsim::scenario_kind(root)));
    CHECK_THAT(error_of([&] { hpcsim::runnable_scenario_kind(root); }),
               Catch::StartsWith("later.yaml:2:7: ") && Catch::Contains(std::string("'") + kind + "'") &&
                   Catch::Contains("not built yet"));
    // parse_training_scenario reads training scenarios only: another kind fails at the key, not at a missing section.
    const hpcsim::SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
    CHECK_THAT(error_of([&] { hpcsim::parse_training_scenario(root, catalog, "x"); }),
               Catch::StartsWith("later.yaml:2:7: ") && Catch::Contains("not built yet"));
  }
  // serve is built (hpcsim serve); parse_training_scenario still refuses it at the key, as not a training scenario.
  const auto serve = parse_config_text("name: x\nkind: serve\n", "serve.yaml");
  CHECK(hpcsim::is_built(hpcsim::scenario_kind(serve)));
  const hpcsim::SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  CHECK_THAT(error_of([&] { hpcsim::parse_training_scenario(serve, catalog, "x"); }),
             Catch::StartsWith("serve.yaml:2:7: ") && Catch::Contains("serve"));
}

TEST_CASE("an unknown kind names the choices", "[analysis][kind]") {
  const auto root = parse_config_text("name: x\nkind:  sreve\n", "typo.yaml");
  CHECK_THAT(error_of([&] { hpcsim::scenario_kind(root); }),
             Catch::StartsWith("typo.yaml:2:8: ") && Catch::Contains("'training', 'schedule', 'serve', 'plan'") &&
                 Catch::Contains("did you mean 'serve'"));
}

TEST_CASE("a plan is built but is not a training scenario", "[analysis][kind]") {
  const auto root = parse_config_text("name: x\nkind: plan\n", "plan.yaml");
  CHECK(hpcsim::is_built(hpcsim::scenario_kind(root)));
  const hpcsim::SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  CHECK_THAT(error_of([&] { hpcsim::parse_training_scenario(root, catalog, "x"); }),
             Catch::StartsWith("plan.yaml:2:7: ") && Catch::Contains("not a training scenario"));
}

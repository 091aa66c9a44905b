#pragma once
// What a scenario simulates, from its top-level `kind:` key. Every kind has its own sections and its own
// metrics; the reports and the results store take any kind's metric list.
#include <string_view>

#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

enum class ScenarioKind {
  training,  // one training step of one job (training_scenario.h); the default
  schedule,  // a job scheduler on a shared cluster (to come)
  serve,     // an inference endpoint under load (to come)
  plan,      // capacity planning over many training scenarios (hpcsim plan, workloads/planning/)
  mpi,       // an MPI (+ OpenMP) application on CPU nodes: HPL (workloads/hpc/, docs/hpc.md)
};

std::string_view to_string(ScenarioKind kind);
const Schema& scenario_kind_schema();  // one of the kind names

// The scenario's `kind:` (training when absent). ConfigError at the key for an unknown name.
ScenarioKind scenario_kind(const ConfigNode& root);

// False for a kind whose simulator is not built yet.
bool is_built(ScenarioKind kind);

// The scenario's kind when it can be simulated; else a ConfigError at the `kind:` key saying that kind
// is not built yet (bad input, like any other config error).
ScenarioKind runnable_scenario_kind(const ConfigNode& root);

}  // namespace hpcsim

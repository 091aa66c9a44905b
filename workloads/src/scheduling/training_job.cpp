#include "workloads/scheduling/training_job.h"

#include <algorithm>
#include <stdexcept>

#include "configs/config_error.h"
#include "workloads/scenario/training_scenario.h"

namespace hpcsim {

namespace {

// The scenario contract's own section schema, so a job's workload reads as a scenario's does.
Schema scenario_section(const std::string& key) {
  const std::vector<Field>& fields = training_scenario_schema().fields();
  const auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.key == key; });
  if (it == fields.end()) throw std::logic_error("the scenario schema has no " + key + " section");
  return it->schema;
}

}  // namespace

const Schema& training_job_schema() {
  static const Schema schema = Schema::map({
      required("workload", scenario_section("workload"), "what the job trains, as a scenario's workload (without steps)"),
      optional("parallelism", scenario_section("parallelism"), "as a scenario's parallelism, on the job's GPUs",
               "data parallelism over every GPU"),
      required("steps", Schema::integer().at_least(1).at_most(1e9), "optimizer steps the job trains"),
  });
  return schema;
}

TrainingJobSpec parse_training_job(const ConfigNode& training, int nodes) {
  training_job_schema().validate(training);
  TrainingJobSpec spec;
  spec.workload = training.at("workload");
  if (const ConfigNode* steps = spec.workload.find("steps")) {
    throw ConfigError(steps->loc(), "a training job's steps go beside its workload (training.steps), not in it");
  }
  if (const ConfigNode* p = training.find("parallelism")) spec.parallelism = *p;
  else spec.parallelism = ConfigNode::make_map(training.loc());
  spec.steps = training.get_int("steps");
  spec.nodes = nodes;
  spec.where = training.loc();
  return spec;
}

}  // namespace hpcsim

#pragma once
// A training job of a batch queue, as a job list writes it under the entry's `training:` key:
//   jobs:
//     - id: 1
//       submit: 0 s
//       nodes: 4
//       training:
//         workload: {model: resnet50, batch_per_gpu: 256, precision: bf16, optimizer: sgd}
//         parallelism: {}        # optional; dp is left to follow the job's GPUs
//         steps: 20000
// `workload` and `parallelism` are the scenario contract's sections (scenario.h), checked against the
// cluster the job runs on by TrainingJobTimer; the step count is the job's, beside them (workload.steps is
// refused so that there is one). The job's run time is steps x the step time simulated on its nodes.
#include <cstdint>

#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

struct TrainingJobSpec {
  ConfigNode workload;     // as written (locations kept for errors)
  ConfigNode parallelism;  // as written, or an empty map at the training key's place
  std::int64_t steps = 1;
  int nodes = 1;           // the nodes the job asks for
  SourceLoc where;         // the `training:` map
};

// The `training:` map's schema (workload and parallelism as the scenario's).
const Schema& training_job_schema();
// Validates the map (ConfigError at the offending key). `nodes` is the entry's node count.
TrainingJobSpec parse_training_job(const ConfigNode& training, int nodes);

}  // namespace hpcsim

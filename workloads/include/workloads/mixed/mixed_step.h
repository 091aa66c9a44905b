#pragma once
// The step of a synchronous data-parallel job across two node types (mixed_nodes_config.h). The gradient
// all-reduce waits for the slowest replica, so the job's step is the longer of the two node types' steps.
// Each node type's step is simulated on a cluster of the same node count all of that type (the collective
// spans the same ring, and a ring runs at its slowest link, as the straggler model argues), with that
// type's batch. even: both at the file's. proportional: each type's samples per replica in proportion to
// its replicas' simulated samples/s, so the steps come together: the micro batch is split when the step has
// one microbatch, else the count of microbatches (gradient-accumulation steps or pipeline microbatches; a
// multiple of pp with the interleaved schedule), each at least 1. The ratio is taken at the file's batch and
// refined once at the chosen one; the global batch is kept as close as the integers allow and reported.
#include <cstdint>
#include <optional>

#include "workloads/scenario/training_scenario.h"
#include "workloads/training/training_step_report.h"

namespace hpcsim {

struct MixedGeneration {
  int replicas = 0;     // data-parallel replicas on this node type
  int micro_batch = 0;  // samples per pass per replica
  int microbatches = 1;  // passes per optimizer step
  double step_s = 0;    // the step of a cluster all of this type at this micro batch
  bool fits_in_memory = true;
};

struct MixedSteps {
  BatchSplit split = BatchSplit::even;
  MixedGeneration first, second;  // cluster.node, mixed_nodes.node
  double job_s = 0;               // the longer of the two
  std::int64_t global_batch = 0;  // samples per optimizer step, as split
  double samples_per_s = 0;       // global_batch / job_s
  double idle_fraction = 0;       // the faster node type's idle share of the job's step
  std::optional<double> speedup_vs_even;  // proportional: samples/s over the even split's
};

// The scenario on a cluster all of one node type (second: mixed_nodes.node) at `micro_batch` x
// `microbatches` per replica, without its mixed_nodes, stragglers and resilience sections.
TrainingScenario generation_scenario(const TrainingScenario& scenario, bool second, int micro_batch, int microbatches);

// `first_at_file_batch`: the scenario's own step (cluster.node everywhere, the file's micro batch).
MixedSteps mixed_steps(const TrainingScenario& scenario, const TrainingStepResult& first_at_file_batch);

}  // namespace hpcsim

#pragma once
// The metrics a training run's input pipeline adds to its report (input.*): the time each stage takes per
// batch (storage, decode, host-to-device copy) and the steady time per batch, the stage that binds
// (input.bound.<stage> = 1) and how busy each resource of the storage was (input.storage_use.<resource>).
#include <vector>

#include "store/metric.h"
#include "workloads/training/input_pipeline.h"

namespace hpcsim {

std::vector<Metric> input_pipeline_metrics(const InputPipelineResult& input);

}  // namespace hpcsim

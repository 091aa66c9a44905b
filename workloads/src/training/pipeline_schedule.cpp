#include "workloads/training/pipeline_schedule.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hpcsim {

namespace {

void check(PipelineSchedule schedule, int stage, int stages, int microbatches, int chunks) {
  if (stages < 1 || stage < 0 || stage >= stages) {
    throw std::invalid_argument("pipeline stage " + std::to_string(stage) + " outside 0.." + std::to_string(stages - 1));
  }
  if (microbatches < 1 || chunks < 1) throw std::invalid_argument("a pipeline needs microbatches and chunks >= 1");
  if (chunks > 1 && schedule != PipelineSchedule::interleaved) {
    throw std::invalid_argument("model chunks per GPU need the interleaved schedule");
  }
  if (schedule == PipelineSchedule::interleaved && microbatches % stages != 0) {
    throw std::invalid_argument("the interleaved schedule needs microbatches (" + std::to_string(microbatches) +
                                ") to be a multiple of the stages (" + std::to_string(stages) + ")");
  }
}

// The k-th forward (or backward) pass of an interleaved stage: microbatches go in groups of `stages`
// through chunk 0, then the same group through chunk 1, ... (Megatron's get_model_chunk_id).
PipelinePass interleaved_pass(int k, bool forward, int stages, int chunks) {
  const int group = k / (stages * chunks), in_group = k % (stages * chunks);
  int chunk = in_group / stages;
  if (!forward) chunk = chunks - 1 - chunk;
  return {forward, group * stages + in_group % stages, chunk};
}

}  // namespace

std::vector<PipelinePass> pipeline_order(PipelineSchedule schedule, int stage, int stages, int microbatches,
                                         int chunks) {
  check(schedule, stage, stages, microbatches, chunks);
  std::vector<PipelinePass> order;
  const int passes = microbatches * chunks;
  order.reserve(static_cast<std::size_t>(2 * passes));
  if (schedule == PipelineSchedule::gpipe) {
    for (int m = 0; m < microbatches; ++m) order.push_back({true, m, 0});
    for (int m = 0; m < microbatches; ++m) order.push_back({false, m, 0});
    return order;
  }
  // 1F1B (plain or interleaved): warm-up forwards, steady one-forward-one-backward, cool-down backwards.
  int warmup = schedule == PipelineSchedule::interleaved ? (stages - stage - 1) * 2 + (chunks - 1) * stages
                                                         : stages - stage - 1;
  warmup = std::min(warmup, passes);
  auto pass = [&](int k, bool forward) {
    return chunks > 1 ? interleaved_pass(k, forward, stages, chunks) : PipelinePass{forward, k, 0};
  };
  int f = 0, b = 0;
  for (; f < warmup; ++f) order.push_back(pass(f, true));
  while (f < passes) {
    order.push_back(pass(f++, true));
    order.push_back(pass(b++, false));
  }
  while (b < passes) order.push_back(pass(b++, false));
  return order;
}

double microbatches_in_flight(PipelineSchedule schedule, int stage, int stages, int microbatches, int chunks) {
  const std::vector<PipelinePass> order = pipeline_order(schedule, stage, stages, microbatches, chunks);
  int live = 0, peak = 0;
  for (const PipelinePass& p : order) {
    live += p.forward ? 1 : -1;
    peak = std::max(peak, live);
  }
  return static_cast<double>(peak) / chunks;
}

}  // namespace hpcsim

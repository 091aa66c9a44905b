#pragma once
// What one simulated training step reports: its headline figures (TrainingStepResult, the fields `hpcsim
// run` prints, named as their fixed JSON keys) inside the whole report (TrainingStepReport: memory,
// collectives, FLOPs, the input pipeline, the timeline). Result types only: the step's input is
// training_step_config.h, the simulation model_training_step.h.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/training/input_pipeline.h"
#include "workloads/training/parallel_layout.h"
#include "workloads/training/training_memory.h"

namespace hpcsim {

struct StepBreakdown {
  double compute = 0;                // compute on the critical path
  double communication_exposed = 0;  // communication not hidden behind compute
  double io_stall = 0;               // waiting for input data
  double pipeline_bubble = 0;        // idle pipeline stages
  double optimizer = 0;              // parameter update
  double other = 0;                  // anything else on the critical path (waits, latencies)
};

// Bytes per GPU by what holds them; they add up to memory_per_gpu_bytes.
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer_state = 0;  // moments and fp32 master weights
  double activations = 0;      // kept for backward
  double workspace = 0;        // transient: output and input gradients of the largest layer, DDP buckets
};

struct TrainingStepResult {
  double step_time_s = 0;
  double samples_per_s = 0;
  std::optional<double> tokens_per_s;  // only for sequence models
  double tflops_per_gpu = 0;           // model FLOPs per GPU per second / 1e12
  double mfu = 0;                      // model FLOP/s over the GPU's dense peak in the precision used
  double hardware_tflops_per_gpu = 0;  // as tflops_per_gpu, recomputed forwards counted (Megatron's convention)
  double pipeline_bubble_fraction = 0; // idle share of the pipeline phase, averaged over stages
  StepBreakdown breakdown;
  double memory_per_gpu_bytes = 0;
  MemoryBreakdown memory;
  bool fits_in_memory = true;
  int gpus = 0;
  ParallelLayout layout;    // the parallel layout that ran
  int microbatches = 1;     // passes per optimizer step
  double global_batch = 0;  // samples per optimizer step
  int steps = 1;                       // workload.steps: the run's length in optimizer steps
  double training_time_s = 0;          // steps x step time, plus the input pipeline's first fill
  std::uint64_t events = 0;            // simulator events processed
};

// One op of the simulated step, for a timeline (--trace).
struct TimelineOp {
  std::string name;    // e.g. "fwd.stage3.mb0", "grad_bucket.2", "optimizer.stage0"
  std::string lane;    // "stage 3 compute", "stage 3 data-parallel", "p2p 3->4 forward", ...
  std::string category;  // compute, communication, optimizer
  double start_s = 0, end_s = 0;
};

struct TrainingStepReport {
  TrainingStepResult result;    // memory_per_gpu_bytes == memory.total()
  TrainingMemory memory;        // of the GPU that needs the most
  double allreduce_time_s = 0;  // summed data-parallel collective durations, exposed or hidden
  int gradient_buckets = 0;     // data-parallel gradient collectives issued per step
  double model_flops = 0;       // per GPU per step: 3 x forward FLOPs (backward counted as twice forward)
  double hardware_flops = 0;    // per GPU per step, recomputed forwards included
  double pipeline_bubble_fraction = 0;  // idle share of the pipeline phase, averaged over stages
  int stages = 1;
  std::optional<InputPipelineResult> input;  // when the scenario reads a dataset
  std::vector<TimelineOp> timeline;          // filled when TrainingStepConfig::record_timeline
};

}  // namespace hpcsim

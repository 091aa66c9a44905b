#include "workloads/training/simulate_scenario.h"

#include <algorithm>

#include "workloads/training/input_pipeline.h"

namespace hpcsim {

TrainingRun training_run(const Scenario& s) {
  const WorkloadConfig& w = s.workload;
  const ParallelismConfig& p = s.parallelism;
  const ExecutionMode& mode = s.framework.mode(w.compile);
  TrainingRun run;
  run.micro_batch = w.batch_per_gpu;
  run.microbatches = p.microbatches;
  run.dp = p.dp, run.tp = p.tp, run.pp = p.pp, run.vp = p.vp, run.cp = p.cp;
  run.zero = p.zero;
  run.schedule = p.schedule;
  run.precision = w.precision;
  run.optimizer = w.optimizer;
  run.optimizer_impl = w.optimizer_impl;
  run.activation_checkpointing = w.activation_checkpointing;
  run.d_steps = w.d_steps;
  run.gan = w.gan;
  run.issue = mode.issue();
  run.issue.cuda_graphs = run.issue.cuda_graphs || w.cuda_graphs;
  run.fusion = mode.fusion;
  run.channels_last = w.memory_format ? *w.memory_format == "nhwc" : s.framework.channels_last;
  run.overlap_gradient_reduce = s.framework.overlaps_gradient_reduce;
  run.flash_attention = w.attention ? *w.attention == "flash" : s.framework.flash_attention;
  return run;
}

namespace {

// Stretches the step by the time it waits for input, keeping every rate consistent with the new time.
void add_io_stall(ModelStepReport& report, double stall_s) {
  StepResult& r = report.result;
  if (stall_s <= 0) return;
  const double scale = r.step_time_s / (r.step_time_s + stall_s);
  r.step_time_s += stall_s;
  r.training_time_s = r.step_time_s;
  r.samples_per_s *= scale;
  if (r.tokens_per_s) *r.tokens_per_s *= scale;
  r.tflops_per_gpu *= scale;
  r.hardware_tflops_per_gpu *= scale;
  r.mfu *= scale;
  r.breakdown.io_stall = stall_s;
}

}  // namespace

ModelStepReport simulate_scenario(const Scenario& s, bool record_timeline) {
  TrainingRun run = training_run(s);
  run.record_timeline = record_timeline;
  ModelStepReport report = simulate_training_step(s.workload.built, s.cluster, run);
  if (s.dataset) {
    // One loader per data-parallel replica (pipeline and tensor-parallel ranks share their replica's
    // input), spread over the job's nodes.
    const int loaders_per_node = std::clamp(s.parallelism.dp / s.cluster.nodes, 1, s.cluster.gpus_per_node);
    LoaderConfig loader;
    loader.workers_per_gpu = s.workload.loader_workers.value_or(s.framework.loader_workers_per_gpu);
    loader.page_cache_warm = s.workload.page_cache_warm;
    const InputPipelineResult input =
        simulate_input_pipeline(*s.dataset, s.storage_spec, s.cluster.node, loaders_per_node, s.cluster.nodes,
                                std::int64_t{s.workload.batch_per_gpu} * s.parallelism.microbatches, loader);
    add_io_stall(report, io_stall_s(input, report.result.step_time_s));
    report.input = input;
  }
  StepResult& r = report.result;
  r.steps = s.workload.steps;
  r.training_time_s = r.steps * r.step_time_s + (report.input ? report.input->fill_s : 0.0);
  return report;
}

}  // namespace hpcsim

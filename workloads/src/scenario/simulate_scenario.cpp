#include "workloads/scenario/simulate_scenario.h"

#include <algorithm>

#include "../training/step_rates.h"
#include "workloads/training/input_pipeline.h"
#include "workloads/training/training_memory.h"

namespace hpcsim {

TrainingStepConfig training_step_config(const TrainingScenario& s) {
  const WorkloadConfig& w = s.workload;
  const ParallelismConfig& p = s.parallelism;
  const ExecutionMode& mode = s.framework.mode(w.compile);
  TrainingStepConfig run;
  run.micro_batch = w.batch_per_gpu;
  run.microbatches = p.microbatches;
  run.layout = p.layout;
  run.zero = p.zero;
  run.schedule = p.schedule;
  run.precision = w.precision;
  run.optimizer = w.optimizer;
  run.optimizer_impl = w.optimizer_impl;
  run.recompute = w.recompute;
  run.tp_comm_overlap = w.tp_comm_overlap.value_or(false);
  run.sequence_parallel = p.sequence_parallel;
  run.d_steps = w.d_steps;
  run.gan = w.gan;
  run.issue = mode.issue();
  run.issue.cuda_graphs = run.issue.cuda_graphs || w.cuda_graphs;
  run.fusion = mode.fusion;
  run.channels_last = w.memory_format.value_or(s.framework.memory_format) == MemoryFormat::nhwc;
  run.overlap_gradient_reduce = s.workload.overlap_gradient_reduce.value_or(s.framework.overlaps_gradient_reduce);
  run.overlap_param_gather = s.workload.overlap_param_gather;
  if (s.framework.bucket_params > 0) {
    const double params = std::max<double>(static_cast<double>(s.framework.bucket_params),
                                           static_cast<double>(s.framework.bucket_params_per_replica) *
                                               std::max(1, p.layout.replicas()));
    run.bucket_bytes = params * gradient_bytes_per_param(run.precision);
  }
  run.flash_attention = w.attention.value_or(s.framework.attention) == AttentionKernel::flash;
  run.linear_bias_epilogue = s.framework.linear_bias_epilogue;
  return run;
}

namespace {

// Stretches the step by the time it waits for input, keeping every rate consistent with the new time.
void add_io_stall(TrainingStepReport& report, double stall_s) {
  TrainingStepResult& r = report.result;
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

// The expected step over the padded lengths batches run at (workload.length_bin): times, FLOPs, the
// breakdown and the bubble are averages weighted by the share of steps at each length; memory, the
// timeline and the layout are the longest batch's.
TrainingStepReport simulate_length_mix(const TrainingScenario& s, const TrainingStepConfig& run, const StepProgress& progress) {
  // Share-weighted sums; shares add up to 1 up to rounding, so they are normalised at the end.
  double shares = 0, step_s = 0, model_flops = 0, hardware_flops = 0, allreduce_s = 0, bubble = 0;
  StepBreakdown breakdown;
  std::uint64_t events = 0;
  TrainingStepReport longest;  // the report everything else is taken from
  std::int64_t longest_length = 0;
  for (const TrainingScenario::PaddedModel& entry : s.length_mix) {
    TrainingStepReport r = simulate_training_step(entry.model, s.cluster, run, progress);
    const double w = entry.padded.share;
    shares += w;
    step_s += w * r.result.step_time_s;
    model_flops += w * r.model_flops, hardware_flops += w * r.hardware_flops;
    // The bubble fraction is of each step's pipeline phase: weighted by time as well as by share.
    allreduce_s += w * r.allreduce_time_s, bubble += w * r.result.step_time_s * r.pipeline_bubble_fraction;
    const StepBreakdown& b = r.result.breakdown;
    breakdown.compute += w * b.compute, breakdown.communication_exposed += w * b.communication_exposed;
    breakdown.io_stall += w * b.io_stall, breakdown.pipeline_bubble += w * b.pipeline_bubble;
    breakdown.optimizer += w * b.optimizer, breakdown.other += w * b.other;
    events += r.result.events;
    if (entry.padded.length > longest_length) longest_length = entry.padded.length, longest = std::move(r);
  }
  TrainingStepReport mixed = std::move(longest);
  TrainingStepResult& m = mixed.result;
  const double samples_per_step = m.samples_per_s * m.step_time_s;  // the same at every length
  for (double* v : {&breakdown.compute, &breakdown.communication_exposed, &breakdown.io_stall,
                    &breakdown.pipeline_bubble, &breakdown.optimizer, &breakdown.other}) {
    *v /= shares;
  }
  m.step_time_s = step_s / shares;
  m.training_time_s = m.step_time_s;
  m.breakdown = breakdown;
  m.events = events;
  mixed.model_flops = model_flops / shares, mixed.hardware_flops = hardware_flops / shares;
  mixed.allreduce_time_s = allreduce_s / shares, mixed.pipeline_bubble_fraction = bubble / step_s;
  training_detail::derive_step_rates(mixed, samples_per_step, s.cluster.node.gpu.peak(run.precision));
  m.pipeline_bubble_fraction = mixed.pipeline_bubble_fraction;
  return mixed;
}

}  // namespace

TrainingStepReport simulate_scenario(const TrainingScenario& s, bool record_timeline, bool exact, const StepProgress& progress) {
  TrainingStepConfig run = training_step_config(s);
  run.record_timeline = record_timeline;
  run.exact = exact;
  TrainingStepReport report =
      s.length_mix.empty() ? simulate_training_step(s.workload.built, s.cluster, run, progress) : simulate_length_mix(s, run, progress);
  if (s.sequence_lengths) {
    // Throughput in real tokens: the distribution's own count per sample, or each of the sample's token
    // inputs holding the distribution's mean, not seq_len.
    const Model& model = s.workload.built;
    const double inputs = static_cast<double>(model.counted_tokens()) / static_cast<double>(model.token_input_length());
    const SequenceLengths& lengths = *s.sequence_lengths;
    const double per_sample = lengths.tokens_per_sample > 0 ? lengths.tokens_per_sample : inputs * lengths.mean();
    report.result.tokens_per_s = report.result.samples_per_s * per_sample;
  }
  if (s.dataset) {
    const int loaders_per_node = loading_gpus_per_node(s.parallelism.layout.dp, s.cluster.nodes, s.cluster.gpus_per_node);
    const LoaderConfig loader = s.workload.loader(s.workload.loader_workers.value_or(s.framework.loader_workers_per_gpu));
    const std::int64_t batch = std::int64_t{s.workload.batch_per_gpu} * s.parallelism.microbatches;
    const InputPipelineResult input =
        s.filesystem_spec
            ? simulate_input_pipeline(*s.dataset, *s.filesystem_spec, s.cluster.node, loaders_per_node, s.cluster.nodes,
                                      batch, loader)
            : simulate_input_pipeline(*s.dataset, s.storage_spec, s.cluster.node, loaders_per_node, s.cluster.nodes,
                                      batch, loader);
    add_io_stall(report, io_stall_s(input, report.result.step_time_s));
    report.input = input;
  }
  TrainingStepResult& r = report.result;
  r.steps = s.workload.steps;
  r.training_time_s = r.steps * r.step_time_s + (report.input ? report.input->fill_s : 0.0);
  return report;
}

}  // namespace hpcsim

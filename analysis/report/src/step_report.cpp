#include "report/step_report.h"

#include <algorithm>

namespace hpcsim {

std::vector<Metric> training_step_metrics(const TrainingStepResult& r, double sim_wall_s, const std::optional<PredictionInterval>& interval) {
  const StepBreakdown& b = r.breakdown;
  std::vector<Metric> metrics = {
      {"step_time_s", r.step_time_s, "s"},
      {"throughput.samples_per_s", r.samples_per_s, "1/s"},
      {"throughput.tokens_per_s", r.tokens_per_s, "1/s"},
      {"tflops_per_gpu", r.tflops_per_gpu, "TFLOP/s"},
      {"mfu", r.mfu, "ratio"},
      {"hardware_tflops_per_gpu", r.hardware_tflops_per_gpu, "TFLOP/s"},
      {"breakdown_s.compute", b.compute, "s"},
      {"breakdown_s.communication_exposed", b.communication_exposed, "s"},
      {"breakdown_s.io_stall", b.io_stall, "s"},
      {"breakdown_s.pipeline_bubble", b.pipeline_bubble, "s"},
      {"breakdown_s.optimizer", b.optimizer, "s"},
      {"breakdown_s.other", b.other, "s"},
      {"pipeline_bubble_fraction", r.pipeline_bubble_fraction, "ratio"},
      {"memory_per_gpu_bytes", r.memory_per_gpu_bytes, "bytes"},
      {"memory_breakdown_bytes.weights", r.memory.weights, "bytes"},
      {"memory_breakdown_bytes.gradients", r.memory.gradients, "bytes"},
      {"memory_breakdown_bytes.optimizer_state", r.memory.optimizer_state, "bytes"},
      {"memory_breakdown_bytes.activations", r.memory.activations, "bytes"},
      {"memory_breakdown_bytes.workspace", r.memory.workspace, "bytes"},
      {"fits_in_memory", r.fits_in_memory ? 1.0 : 0.0, "bool"},
      {"gpus", static_cast<double>(r.gpus), "count"},
      {"parallelism.dp", static_cast<double>(r.layout.dp), "count"},
      {"parallelism.tp", static_cast<double>(r.layout.tp), "count"},
      {"parallelism.pp", static_cast<double>(r.layout.pp), "count"},
      {"parallelism.vp", static_cast<double>(r.layout.vp), "count"},
      {"parallelism.cp", static_cast<double>(r.layout.cp), "count"},
      {"parallelism.microbatches", static_cast<double>(r.microbatches), "count"},
      {"parallelism.global_batch", r.global_batch, "count"},
      {"steps", static_cast<double>(r.steps), "count"},
      {"training_time_s", r.training_time_s, "s"},
      {"sim_wall_s", sim_wall_s, "s"},
      {"events", static_cast<double>(r.events), "count"},
  };
  if (interval) {
    const auto after = [&metrics](const std::string& name) {
      return std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == name; }) + 1;
    };
    // The throughput band is the step-time band turned over: samples per step are fixed.
    const double samples_per_step = r.samples_per_s * r.step_time_s;
    metrics.insert(after("throughput.samples_per_s"),
                   {{"throughput.samples_per_s_interval[0]", samples_per_step / interval->high_s, "1/s"},
                    {"throughput.samples_per_s_interval[1]", samples_per_step / interval->low_s, "1/s"}});
    metrics.insert(after("step_time_s"),
                   {{"step_time_interval_s[0]", interval->low_s, "s"}, {"step_time_interval_s[1]", interval->high_s, "s"}});
  }
  return metrics;
}

}  // namespace hpcsim

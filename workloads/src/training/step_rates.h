#pragma once
// The rates a step report derives from its step time: samples/s, model and hardware TFLOP/s per GPU, MFU.
// One rule for the step engine and for the length-mixed step built from several of its reports. Private to
// the training step.
#include "workloads/training/training_step_report.h"

namespace hpcsim::training_detail {

inline void derive_step_rates(TrainingStepReport& report, double samples_per_step, double peak_flops) {
  TrainingStepResult& r = report.result;
  r.samples_per_s = samples_per_step / r.step_time_s;
  r.tflops_per_gpu = report.model_flops / r.step_time_s / 1e12;
  r.mfu = r.tflops_per_gpu * 1e12 / peak_flops;
  r.hardware_tflops_per_gpu = report.hardware_flops / r.step_time_s / 1e12;
}

}  // namespace hpcsim::training_detail

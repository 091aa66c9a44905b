#pragma once
// How a training job is cut across GPUs: data-, tensor-, pipeline- and context-parallel degrees, and
// virtual stages per pipeline GPU. The one layout type: the scenario's parallelism section, a step config,
// the step plan and the step's result all hold one. GPUs are numbered Megatron-style: tp fastest, then
// cp, then dp, then pipeline stage (gpu = tp_rank + tp * (cp_rank + cp * (dp_rank + dp * stage))); with
// tp_pp_dp (Megatron's --use-tp-pp-dp-mapping) the stages come before dp, so one replica's GPUs are adjacent.
#include <string>

namespace hpcsim {

struct ParallelLayout {
  int dp = 1, tp = 1, pp = 1, vp = 1, cp = 1;
  bool tp_pp_dp = false;  // rank order tp-cp-pp-dp instead of tp-cp-dp-pp

  int model_parallel() const { return tp * pp * cp; }  // GPUs holding one replica of the model
  int gpus() const { return dp * model_parallel(); }
  int virtual_stages() const { return pp * vp; }
  int replicas() const { return dp * cp; }  // ranks holding the same weights: what ZeRO shards over
  int gpu(int stage, int d, int r, int c) const {
    return r + tp * (c + cp * (tp_pp_dp ? stage + pp * d : d + dp * stage));
  }
  // "dp 16 x tp 1 x pp 1 x cp 1", as notes and errors print it.
  std::string to_string() const {
    return "dp " + std::to_string(dp) + " x tp " + std::to_string(tp) + " x pp " + std::to_string(pp) + " x cp " +
           std::to_string(cp);
  }
  bool operator==(const ParallelLayout&) const = default;
};

}  // namespace hpcsim

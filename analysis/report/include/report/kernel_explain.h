#pragma once
// The teaching view of the analytical kernel model (`hpcsim kernel ... --explain`): for each kernel an op
// launches, occupancy and the limit that binds, waves and the tail, the sectors and the L2 and HBM traffic
// the model assumes, the roofline position, and where warp cycles went, from the kernel's WarpSim twin where
// the op has one (kernel_twins.h), beside the analytical time.
#include <optional>
#include <string>
#include <vector>

#include "report/warp_sim_report.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/occupancy.h"
#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/warp_sim/kernel_twins.h"

namespace hpcsim {

struct WaveShape {
  double waves = 0;            // blocks / (resident blocks per SM x SMs)
  std::int64_t full_waves = 0;
  std::int64_t tail_blocks = 0;  // blocks of the last, partial wave (0: the waves are whole)
  double tail_fill = 0;          // tail_blocks / one wave's blocks
};

struct TwinRun {  // the kernel's WarpSim twin, run
  KernelProgram program;
  WarpSimResult result;
  double time_s = 0;  // scaled to the whole kernel (KernelTwin::time_scale)
  std::string note;
};

struct KernelExplanation {
  Kernel kernel;
  Occupancy occupancy;
  KernelTime time;  // the analytical model's, one launch
  WaveShape waves;
  double requests = 0, sectors = 0;          // warp-level global requests and the 32-byte sectors they touch
  double coalesced_sectors = 0;              // the sectors the same requests would need with lanes adjacent
  RooflinePoint roofline;
  std::optional<TwinRun> twin;
  std::string no_twin;  // why there is no breakdown, when twin is absent
};

// The kernels' explanations. twins[i] stands for kernels[i] (a shorter list: the rest have none);
// `ops_with_twins` names the ops that have one, for the plain message where this op has not. Runs each
// available twin in WarpSim when the spec has a warp_sim: section. Throws std::invalid_argument for a
// launch the GPU cannot run.
std::vector<KernelExplanation> explain_kernels(const GpuSpec& gpu, const std::vector<Kernel>& kernels,
                                               const std::vector<KernelTwin>& twins,
                                               const std::string& ops_with_twins);

// Plain words, one section per kernel.
std::string render_kernel_explanations(const GpuSpec& gpu, const std::vector<KernelExplanation>& kernels);
// {"kernels": [{"name", "count", "launch", "occupancy", "waves", "memory", "roofline", "time", "warp_sim"}]}
// (time: time_s, bound, compute_s and its special_s and block_s, hbm_s, l2_s, smem_s, lsu_s, latency_s, launch_s),
// indented by `indent` spaces after the first line.
std::string kernel_explanations_json(const std::vector<KernelExplanation>& kernels, int indent);

}  // namespace hpcsim

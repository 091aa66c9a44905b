#pragma once
// WarpSim's teaching view (`hpcsim microbench --explain`) and timeline (`--trace FILE`).
#include <string>
#include <string_view>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/occupancy.h"
#include "models/gpu/warp_sim/warp_sim.h"

namespace hpcsim {

// Plain-words account of one kernel: occupancy and the binding limit, where the resident warps' cycles went,
// lanes idle from divergence, sectors per request and hit rates, and the roofline position.
std::string explain_warp_sim(const GpuSpec& gpu, const KernelProgram& program, const WarpSimResult& result);

// The paragraphs the teaching views share (`hpcsim microbench --explain`, `hpcsim kernel --explain`).

// Plain words for the resource that stops one more block fitting on an SM.
std::string_view occupancy_limit_words(OccupancyLimiter limiter);
// "Occupancy: N blocks = W of M warps per SM (P %). The limit that binds: ... (what each limit allows)."
std::string explain_occupancy(const GpuSpec& gpu, const Occupancy& occupancy);
// Where the resident warps' cycles went, one line per WarpState, and the lanes idle from divergence.
std::string explain_warp_cycles(const WarpSimResult& result);

// A kernel's place on the roofline: FLOP per HBM byte against the machine balance of the unit and precision
// its math runs on (peak FLOP/s over the datasheet HBM bandwidth).
struct RooflinePoint {
  std::string unit;          // "bf16 tensor", "fp32 vector", ...
  double peak_flops = 0;     // FLOP/s
  double balance = 0;        // FLOP per HBM byte at the ridge
  double intensity = 0;      // the kernel's FLOP per HBM byte; infinite when it moves no HBM bytes
  bool memory_bound = true;  // left of the ridge
  double factor = 0;         // how far from the ridge: balance / intensity left of it, intensity / balance right
};
RooflinePoint roofline_point(const GpuSpec& gpu, Precision precision, MathUnit unit, double flops, double hbm_bytes);
// "Roofline: the machine balance is ... This kernel does ... FLOP per HBM byte: ... It reached ... TFLOP/s."
std::string explain_roofline(const GpuSpec& gpu, const RooflinePoint& point, double flops, double seconds);

// Chrome trace-event JSON (Perfetto): one process per simulated SM, one thread per warp scheduler, one
// complete event per run of consecutive issue cycles of one instruction class; ts and dur in microseconds
// of the GPU clock. Same result, same bytes.
std::string warp_sim_trace_json(const std::string& title, const WarpSimResult& result);

}  // namespace hpcsim

#pragma once
// WarpSim's teaching view (`hpcsim microbench --explain`) and timeline (`--trace FILE`).
#include <string>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/warp_sim/warp_sim.h"

namespace hpcsim {

// Plain-words account of one kernel: occupancy and the binding limit, where the resident warps' cycles went,
// lanes idle from divergence, sectors per request and hit rates, and the roofline position.
std::string explain_warp_sim(const GpuSpec& gpu, const KernelProgram& program, const WarpSimResult& result);

// Chrome trace-event JSON (Perfetto): one process per simulated SM, one thread per warp scheduler, one
// complete event per run of consecutive issue cycles of one instruction class; ts and dur in microseconds
// of the GPU clock. Same result, same bytes.
std::string warp_sim_trace_json(const std::string& title, const WarpSimResult& result);

}  // namespace hpcsim

#pragma once
// NVLink SHARP (NCCL's NVLS algorithm): on an NVSwitch fabric of Hopper or later GPUs the switch reduces what
// the GPUs send it and multicasts the result, so an all-reduce moves each byte once into and once out of each
// GPU instead of a ring's 2(n-1)/n times. NCCL's cost model (src/graph/tuning.cc, and src/tuning/nvls.cc in
// later releases) rates it at the GPU's NVLink bandwidth x nvlsEfficiency (0.85 on Hopper, 0.74 on
// Blackwell: measured, per its comments) x (channels - 1) / channels (one of the 16 NVLS channels,
// NCCL_NVLS_NCHANNELS, synchronises), after a fixed 23 us (hwLat[NVLINK][NVLS][SIMPLE]).
#include <string_view>

#include "models/node/node_spec.h"

namespace hpcsim {

inline constexpr double kNvlsChannels = 16;
inline constexpr double kNvlsLatencyS = 23e-6;

// nvlsEfficiency by compute capability ("9.0" Hopper, "10.x" Blackwell; 0: no NVLS).
double nvls_efficiency(std::string_view compute_capability);
// The share of a GPU's NVSwitch port rate an NVLS all-reduce reaches on `node`; 0 when the node's GPUs do
// not sit on an NVSwitch fabric or do not support NVLS.
double nvls_port_fraction(const NodeSpec& node);

}  // namespace hpcsim

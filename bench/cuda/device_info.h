// Finding the device and describing it in the CSV header, so a result file says what produced it.
#pragma once

#include "context.h"

namespace hcb {

// Selects device 0 (pick another with CUDA_VISIBLE_DEVICES). Without one, prints
// "hpcsim-cuda-bench: no CUDA device: <reason>" and returns false; nothing else is touched.
bool select_device(cudaDeviceProp* prop);

// The "# key: value" lines, in the order the parser expects, then the column line.
void write_header(Context& ctx);

}  // namespace hcb

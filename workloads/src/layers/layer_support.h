#pragma once
// Shared by the layer implementations: input checks and the common memory-bound kernels.
#include <string>
#include <vector>

#include "models/gpu/ops/elementwise.h"
#include "workloads/layers/layer.h"

namespace hpcsim::layer_support {

// The single input, checked to have `rank` dimensions (0: any rank).
const Shape& single_input(const Shapes& in, std::size_t rank, const char* what);

inline double value_bytes(Precision p) { return bytes_per_element(p); }
// Bytes of `batch` samples of a shape.
double batch_bytes(const Shape& shape, const LayerRun& run);
double batch_elements(const Shape& shape, const LayerRun& run);

// One elementwise kernel over `elements` values reading `reads` tensors and writing `writes`.
Kernel pointwise(const std::string& name, double elements, double flops_per_element, int reads, int writes,
                 Precision p);

}  // namespace hpcsim::layer_support

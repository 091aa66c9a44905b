#include "layer_support.h"

namespace hpcsim::layer_support {

const Shape& single_input(const Shapes& in, std::size_t rank, const char* what) {
  if (in.size() != 1) throw ShapeError("takes one input, got " + std::to_string(in.size()));
  if (rank != 0 && in[0].size() != rank) {
    throw ShapeError(std::string("expects ") + what + ", got " + to_string(in[0]));
  }
  for (std::int64_t d : in[0]) {
    if (d < 1) throw ShapeError("input shape " + to_string(in[0]) + " has an empty dimension");
  }
  return in[0];
}

double batch_elements(const Shape& shape, const LayerRun& run) {
  return static_cast<double>(elements(shape)) * static_cast<double>(run.batch);
}

double batch_bytes(const Shape& shape, const LayerRun& run) {
  return batch_elements(shape, run) * value_bytes(run.precision);
}

Kernel pointwise(const std::string& name, double elements, double flops_per_element, int reads, int writes,
                 Precision p) {
  const double e = value_bytes(p);
  std::vector<ElementStream> streams;
  for (int i = 0; i < reads; ++i) streams.push_back({e, false});
  for (int i = 0; i < writes; ++i) streams.push_back({e, true});
  return elementwise_kernel(name, elements, flops_per_element, streams);
}

}  // namespace hpcsim::layer_support

#include "models/gpu/ops/op_kernel.h"
#include "models/gpu/grid_blocks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace hpcsim {

OpTime estimate_op(const GpuSpec& gpu, const std::vector<Kernel>& kernels) {
  OpTime op;
  std::array<double, 4> time_by_bound{};
  double occupancy_time = 0;
  for (const Kernel& k : kernels) {
    const KernelTime t = estimate_kernel(gpu, k.launch, k.work);
    const double n = static_cast<double>(k.count);
    op.time_s += t.time_s * n;
    op.flops += k.work.flops * n;
    op.hbm_bytes += t.hbm_bytes * n;
    op.launches += k.count;
    time_by_bound[static_cast<int>(t.bound)] += t.time_s * n;
    occupancy_time += t.occupancy * t.time_s * n;
  }
  if (op.time_s > 0) {
    op.flops_per_s = op.flops / op.time_s;
    op.bytes_per_s = op.hbm_bytes / op.time_s;
    op.occupancy = occupancy_time / op.time_s;
    op.bound = static_cast<Bound>(std::max_element(time_by_bound.begin(), time_by_bound.end()) - time_by_bound.begin());
  }
  return op;
}

Kernel elementwise_kernel(std::string name, double elements, double flops_per_element,
                          const std::vector<ElementStream>& streams) {
  if (!(elements >= 1)) throw std::invalid_argument(name + ": needs at least one element");
  constexpr int kThreads = 256;
  constexpr int kVectorBytes = 16;  // one 128-bit load or store per thread per stream
  double widest = 1;
  for (const ElementStream& s : streams) widest = std::max(widest, s.bytes_per_element);
  // Each thread handles one 16-byte vector of the widest stream per step.
  const double per_thread = std::max(1.0, kVectorBytes / widest);
  Kernel k;
  k.name = std::move(name);
  k.launch.threads_per_block = kThreads;
  k.launch.registers_per_thread = 32;
  k.launch.blocks = grid_blocks(std::ceil(elements / (kThreads * per_thread)));
  k.work.flops = elements * flops_per_element;
  k.work.precision = Precision::fp32;
  k.work.unit = MathUnit::vector;
  int reads = 0;
  for (const ElementStream& s : streams) {
    GlobalAccess a;
    a.bytes = elements * s.bytes_per_element;
    a.unique_bytes = a.bytes * s.unique_fraction;
    a.element_bytes = static_cast<int>(std::max(1.0, std::min<double>(kVectorBytes, per_thread * s.bytes_per_element)));
    a.write = s.write;
    reads += s.write ? 0 : 1;
    k.work.add(a);
  }
  // Loads of the different inputs are independent, so they are all in flight together.
  k.work.requests_in_flight = std::max(1, reads);
  k.work.framework_pointwise = true;
  return k;
}

}  // namespace hpcsim

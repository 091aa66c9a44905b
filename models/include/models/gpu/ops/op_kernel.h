#pragma once
// What a deep-learning op launches: a list of kernels, each with its launch shape, its work and how many
// times it runs back to back. estimate_op() times the whole list on one GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "models/gpu/kernel_model.h"

namespace hpcsim {

struct Kernel {
  std::string name;
  KernelLaunch launch;
  KernelWork work;
  std::int64_t count = 1;  // identical launches (time steps, per-tensor loops)
};

struct OpTime {
  double time_s = 0;
  double flops = 0;      // useful operations
  double hbm_bytes = 0;  // bytes read plus written at HBM
  double flops_per_s = 0, bytes_per_s = 0;
  Bound bound = Bound::compute;  // the bound of the kernels that hold most of the time
  double occupancy = 0;          // time-weighted theoretical occupancy
  std::int64_t launches = 0;
};

OpTime estimate_op(const GpuSpec& gpu, const std::vector<Kernel>& kernels);

// A grid-stride elementwise kernel: 256 threads, each moving 16-byte vectors of every stream; math in
// fp32 on the vector unit. Streams are given per element (bytes of each input read, each output written).
struct ElementStream {
  double bytes_per_element = 4;
  bool write = false;
  double unique_fraction = 1;  // < 1 when the stream re-reads data (broadcast operands)
};
Kernel elementwise_kernel(std::string name, double elements, double flops_per_element,
                          const std::vector<ElementStream>& streams);

}  // namespace hpcsim

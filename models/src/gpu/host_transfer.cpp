#include "models/gpu/host_transfer.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim {

double pinned_copy_s(const NetworkSpec& pcie, int lanes, double bytes) {
  if (!(bytes >= 1) || lanes < 1) throw std::invalid_argument("a host copy needs bytes >= 1 and lanes >= 1");
  return pcie.software_latency_s + bytes / pcie.payload_bandwidth(lanes);
}

double pageable_copy_s(double staging_s, double dma_s) {
  if (!(staging_s >= 0) || !(dma_s >= 0)) throw std::invalid_argument("a pageable copy needs times >= 0");
  return std::max(staging_s, dma_s);
}

double copy_then_kernel_s(HostMemory memory, double copy_s, double kernel_s) {
  return memory == HostMemory::pinned ? std::max(copy_s, kernel_s) : copy_s + kernel_s;
}

double overlap_fraction(double copy_s, double kernel_s, double both_s) {
  const double shorter = std::min(copy_s, kernel_s);
  if (!(shorter > 0)) throw std::invalid_argument("an overlap needs two activities of positive length");
  return (copy_s + kernel_s - both_s) / shorter;
}

}  // namespace hpcsim

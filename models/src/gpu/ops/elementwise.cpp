#include "models/gpu/ops/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hpcsim {

std::vector<Kernel> copy_op(double bytes) {
  if (!(bytes >= 1)) throw std::invalid_argument("a copy needs at least one byte");
  // Counted in bytes: one "element" per byte, 16-byte vectors.
  Kernel k = elementwise_kernel("copy", bytes, 0, {{1, false}, {1, true}});
  k.work.framework_pointwise = false;  // a copy streams at the measured bandwidth
  return {k};
}

std::vector<Kernel> elementwise_chain(const ElementwiseChain& c) {
  if (!(c.elements >= 1) || c.ops < 1 || c.inputs < 1) {
    throw std::invalid_argument("an elementwise chain needs elements, ops and inputs >= 1");
  }
  const double e = bytes_per_element(c.precision);
  if (c.fused) {
    // The first op's inputs plus one new input for every later op, read once; one result written.
    // Counted in 64 bits: --ops 2^31 with two inputs overflowed an int and asked for a vector past max_size.
    const std::int64_t inputs = c.inputs + (static_cast<std::int64_t>(c.ops) - 1) * (c.inputs - 1);
    std::vector<ElementStream> streams;
    if (inputs + 1 > static_cast<std::int64_t>(kMaxGlobalAccesses)) {
      // Longer fusions read more inputs than the kernel tracks as separate streams: merge them.
      streams = {{e * static_cast<double>(inputs), false}, {e, true}};
    } else {
      streams.assign(static_cast<std::size_t>(inputs), ElementStream{e, false});
      streams.push_back({e, true});
    }
    return {elementwise_kernel("fused_elementwise_x" + std::to_string(c.ops), c.elements,
                               c.flops_per_op * c.ops, streams)};
  }
  std::vector<ElementStream> streams(static_cast<std::size_t>(std::min(c.inputs, kMaxGlobalAccesses - 1)),
                                     ElementStream{e, false});
  if (c.inputs > kMaxGlobalAccesses - 1) streams = {{e * c.inputs, false}};
  streams.push_back({e, true});
  Kernel k = elementwise_kernel("elementwise", c.elements, c.flops_per_op, streams);
  k.count = c.ops;
  return {k};
}

std::vector<Kernel> row_reduction(std::int64_t rows, std::int64_t cols, Precision precision) {
  if (rows < 1 || cols < 1) throw std::invalid_argument("a reduction needs rows and cols >= 1");
  const double e = bytes_per_element(precision);
  Kernel k;
  k.name = "row_reduce";
  k.launch.blocks = rows;
  k.launch.threads_per_block = static_cast<int>(std::clamp<std::int64_t>(cols * static_cast<std::int64_t>(e) / 16, 32, 512));
  k.launch.registers_per_thread = 32;
  k.launch.smem_per_block = 32 * 4;  // one partial per warp
  k.work.flops = static_cast<double>(rows) * static_cast<double>(cols);
  k.work.add({static_cast<double>(rows * cols) * e, -1, 16, 1, false});
  k.work.add({static_cast<double>(rows) * 4, -1, 4, 1, true});
  k.work.requests_in_flight = 2;  // the loop is unrolled twice
  k.work.framework_pointwise = true;
  return {k};
}

}  // namespace hpcsim

// Pointer chase: the load-to-use latency of global memory, in SM cycles (clock64), against the footprint the
// chase walks. One thread follows a chain in which each load's address is the value the previous load
// returned, so nothing overlaps and each step costs one full latency. Footprints from 4 KiB to at least 4x
// the L2 show the L1, L2 and DRAM plateaus (the method of Jia et al.'s Volta/Turing dissections).
#include "check.h"
#include "device_buffer.h"
#include "grid.h"
#include "timing.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace hcb {
namespace {

// One chain element per 128-byte line: every step touches a new line (and a new sector), at every level.
constexpr size_t kLineBytes = 128;

// The chain holds raw addresses, so a step is one load and nothing else on the dependent path. __ldca asks for
// caching in L1 and L2 explicitly (sm_70 and later cache global loads in L1 by default as well).
__global__ void chase_kernel(const uint64_t* start, long long warm_steps, long long steps, long long* cycles,
                             uint64_t* sink) {
  const uint64_t* p = start;
  for (long long i = 0; i < warm_steps; ++i) p = reinterpret_cast<const uint64_t*>(__ldca(p));
  const long long t0 = clock64();
#pragma unroll 8
  for (long long i = 0; i < steps; ++i) p = reinterpret_cast<const uint64_t*>(__ldca(p));
  const long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = reinterpret_cast<uint64_t>(p);  // keeps the chain live
}

// Footprints: powers of two and the midpoints between them (x1.5), from 4 KiB to the first power of two at
// or above 4x the L2, so each plateau and both transitions get several points.
std::vector<size_t> footprints(const Context& ctx) {
  const size_t l2 = static_cast<size_t>(std::max(ctx.prop.l2CacheSize, 1 << 20));
  std::vector<size_t> sizes;
  for (size_t bytes = 4096;; bytes *= 2) {
    sizes.push_back(bytes);
    if (bytes >= 4 * l2) break;
    if (!ctx.quick) sizes.push_back(bytes + bytes / 2);
  }
  return sizes;
}

// The chain's memory image: one cycle through every line in a fixed-seed random order (Sattolo's algorithm),
// so there is no stride a prefetcher could follow and every run walks the same order (mt19937_64's output is
// fixed by the standard). Only the first word of each line is written; the rest stay zero.
std::vector<uint64_t> random_cycle_image(uint64_t base, size_t footprint) {
  const size_t lines = footprint / kLineBytes;
  std::vector<size_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = i;
  std::mt19937_64 rng(42);
  for (size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);
  constexpr size_t kWordsPerLine = kLineBytes / sizeof(uint64_t);
  std::vector<uint64_t> image(footprint / sizeof(uint64_t), 0);
  for (size_t i = 0; i < lines; ++i) image[order[i] * kWordsPerLine] = base + order[(i + 1) % lines] * kLineBytes;
  return image;
}

}  // namespace

void run_pointer_chase(Context& ctx) {
  const long long steps = ctx.quick ? (1 << 14) : (1 << 16);
  const size_t l2 = static_cast<size_t>(std::max(ctx.prop.l2CacheSize, 1 << 20));
  DeviceCycles cycles(1);
  DeviceBuffer<uint64_t> sink(1);

  for (const size_t footprint : footprints(ctx)) {
    const size_t lines = footprint / kLineBytes;
    DeviceBuffer<uint64_t> chain(footprint / sizeof(uint64_t));
    const std::vector<uint64_t> image = random_cycle_image(reinterpret_cast<uint64_t>(chain.get()), footprint);
    // On ctx.stream: a plain cudaMemcpy from pageable memory may return before its DMA ends, and the
    // non-blocking stream would not wait for it.
    CUDA_CHECK(cudaMemcpyAsync(chain.get(), image.data(), footprint, cudaMemcpyHostToDevice, ctx.stream));

    // Warm-up walks the whole cycle while it can fit in L2 (so cache-resident footprints start warm) and as
    // many steps as are timed beyond that (those miss anyway; the walk only settles the TLBs and clocks).
    const long long warm = footprint <= 2 * l2 ? static_cast<long long>(lines) : std::min<long long>(lines, steps);
    std::vector<double> per_load;
    for (int t = 0; t < std::min(ctx.trials, 3); ++t) {
      chase_kernel<<<1, 1, 0, ctx.stream>>>(chain.get(), warm, steps, cycles.get(), sink.get());
      CUDA_CHECK_LAUNCH(chase_kernel);
      long long c = 0;
      CUDA_CHECK(cudaMemcpyAsync(&c, cycles.get(), sizeof c, cudaMemcpyDeviceToHost, ctx.stream));
      CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      per_load.push_back(static_cast<double>(c) / static_cast<double>(steps));
    }
    ctx.out->row("pointer-chase", Params().add("footprint_bytes", static_cast<long long>(footprint)), "latency",
                 median(per_load), "cycles");
  }
}

}  // namespace hcb

#include "models/gpu/warp_sim/kernel_twins.h"

#include <algorithm>
#include <cmath>

#include "models/gpu/warp_sim/microbenchmarks.h"

namespace hpcsim {

namespace {

KernelTwin none(std::string why) {
  KernelTwin t;
  t.note = std::move(why);
  return t;
}

constexpr double kFlopsPerFp32Lane = 2;  // WarpSim counts an FP32 instruction as one FMA per active lane

}  // namespace

KernelTwin streaming_twin(const Kernel& kernel) {
  const KernelWork& w = kernel.work;
  if (w.shared.bytes > 0) return none("it stages data through shared memory");
  if (w.flops > 0 && (w.unit != MathUnit::vector || w.precision != Precision::fp32)) {
    return none("its math is not FP32 on the vector unit");
  }
  if (w.bulk_copies) return none("its loads are bulk (TMA) copies");
  if (w.working_set_bytes >= 0) return none("it re-reads a working set from L2");
  if (w.global_count == 0) return none("it has no global memory streams");
  const KernelLaunch& launch = kernel.launch;
  const double threads = static_cast<double>(launch.blocks) * launch.threads_per_block;
  // Each stream's accesses per thread: the same whole number for every stream, or the pattern is not a
  // plain stream over the grid.
  long iters = -1;
  for (int i = 0; i < w.global_count; ++i) {
    const GlobalAccess& a = w.global[i];
    if (a.unique_bytes >= 0 && a.unique_bytes < a.bytes) return none("a stream re-reads its data");
    const long n = std::max(1L, std::lround(a.bytes / (threads * a.element_bytes)));
    if (iters >= 0 && n != iters) return none("its streams take different numbers of accesses per thread");
    iters = n;
  }
  const std::int64_t grid = launch.blocks * launch.threads_per_block;
  const int fmas = static_cast<int>(std::ceil(w.flops / (threads * static_cast<double>(iters) * kFlopsPerFp32Lane)));
  ProgramBuilder b(kernel.name, launch);
  std::int64_t base = 0;
  std::vector<std::pair<AddressExpr, const GlobalAccess*>> streams;
  for (int i = 0; i < w.global_count; ++i) {
    const GlobalAccess& a = w.global[i];
    const std::int64_t step = static_cast<std::int64_t>(a.element_bytes) * std::max(1, a.stride_elements);
    AddressExpr e;  // thread t of block b, iteration i: element (i x grid + b x threads + t) x stride
    e.base = base;
    e.tx = static_cast<std::int64_t>(a.element_bytes) * a.stride_elements;
    e.bx = e.tx * launch.threads_per_block;
    e.iter = e.tx * grid;
    streams.push_back({e, &a});
    base += (step * grid * iters + 4095) / 4096 * 4096 + 4096;  // arrays one after another, page-aligned
  }
  b.loop(static_cast<int>(iters), [&] {
    std::vector<int> loaded;
    for (const auto& [e, a] : streams) {
      if (a->write) continue;
      loaded.push_back(1 + static_cast<int>(loaded.size()));
      b.load_global(loaded.back(), e, a->element_bytes);
    }
    // The math folds every loaded value in (n inputs need n - 1 instructions at least).
    int value = loaded.empty() ? 20 : loaded.front();
    const int math = w.flops > 0 ? std::max(fmas, static_cast<int>(loaded.size()) - 1) : 0;
    for (int f = 0; f < math; ++f) {
      const std::size_t next = static_cast<std::size_t>(f) + 1;
      b.fp32(20, value, next < loaded.size() ? loaded[next] : value);
      value = 20;
    }
    for (const auto& [e, a] : streams) {
      if (a->write) b.store_global(value, e, a->element_bytes);
    }
  });
  KernelTwin t;
  t.available = true;
  t.program = b.build();
  t.note = "the kernel's own launch, each thread loading and storing its lanes' bytes of every stream";
  return t;
}

KernelTwin gemm_twin(const GpuSpec& gpu, const GemmShape& s) {
  if (s.precision != Precision::fp16 && s.precision != Precision::bf16) {
    return none("the GEMM tile program computes in fp16 or bf16 (--dtype fp16 or bf16)");
  }
  if (!gpu.tensor_flops_per_clock_per_sm[static_cast<int>(s.precision)]) {
    return none("the GEMM tile program needs tensor cores for " + std::string(to_string(s.precision)));
  }
  if (s.batch != 1) return none("the GEMM tile program runs one product (--batch 1)");
  if (s.m % 128 != 0 || s.n % 128 != 0 || s.k % 32 != 0) {
    return none("the GEMM tile program needs m and n multiples of 128 and k a multiple of 32");
  }
  const std::int64_t ks = std::min(s.k, kGemmSimulatedK);
  KernelTwin t;
  t.available = true;
  t.program = gemm_tile_kernel(s.m, s.n, ks, s.precision);
  t.options.all_sms = true;
  t.time_scale = static_cast<double>(s.k) / static_cast<double>(ks);
  t.note = "the twin suite's GEMM tile program: 128x128x32 block tiles of mma.sync m16n8k16 staged through shared "
           "memory, every SM simulated";
  if (ks < s.k) {
    t.note += "; its k loop simulated to k=" + std::to_string(ks) + " and the time scaled by " +
              std::to_string(s.k / ks) + (s.k % ks ? "+" : "");
  }
  return t;
}

}  // namespace hpcsim

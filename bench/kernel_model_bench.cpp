// Kernel-model evaluations per second, single-threaded (target: >= 1 million/s, since a training step
// holds thousands of kernels and a sweep thousands of steps). The GPU is built here with H100 SXM5
// numbers so the benchmark needs no spec files.
#include <benchmark/benchmark.h>

#include <vector>

#include "models/gpu/kernel_model.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/normalization.h"

using namespace hpcsim;

namespace {

GpuSpec h100_like() {
  GpuSpec g;
  g.name = "bench-h100";
  g.vendor = "nvidia";
  g.compute_capability = "9.0";
  g.sm_count = 132;
  g.boost_clock_hz = 1.98e9;
  g.tensor_clock_hz = 1.83e9;
  g.sm.max_warps = 64;
  g.sm.max_blocks = 32;
  g.sm.max_threads = 2048;
  g.sm.smem_carveouts = {0, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 100 << 10, 132 << 10, 164 << 10, 196 << 10, 228 << 10};
  g.sm.smem_allocation_granularity = 128;
  g.sm.smem_reserved_per_block = 1024;
  g.sm.max_smem_per_block = 227 << 10;
  g.sm.l1_smem_bytes = 256 << 10;
  g.memory.hbm_bandwidth = 3.35e12;
  g.memory.l2_bytes = 50e6;
  g.memory.l2_bandwidth = 10e12;
  g.memory.l2_latency_cycles = 291;
  g.memory.hbm_latency_cycles = 700;
  g.vector_flops_per_clock_per_sm[static_cast<int>(Precision::fp32)] = 256;
  g.tensor_flops_per_clock_per_sm[static_cast<int>(Precision::bf16)] = 4096;
  g.matmul_fraction = 0.8;
  g.memory_fraction = 0.9;
  g.launch_overhead_s = 1.5e-6;
  return g;
}

// A mix like a transformer step's: GEMMs of several shapes, elementwise, norm and softmax kernels.
std::vector<Kernel> kernel_mix(const GpuSpec& g) {
  std::vector<Kernel> mix;
  for (std::int64_t m : {512, 2048, 8192}) {
    mix.push_back(gemm(g, {m, 4096, 4096, 1, Precision::bf16}));
    mix.push_back(gemm(g, {m, 11008, 4096, 1, Precision::bf16}));
  }
  for (double n : {1e6, 1e8}) {
    for (const Kernel& k : elementwise_chain({n, 1, 2, 1, Precision::bf16, false})) mix.push_back(k);
  }
  for (const Kernel& k : layer_norm(16384, 4096, Precision::bf16)) mix.push_back(k);
  for (const Kernel& k : softmax(262144, 2048, Precision::bf16)) mix.push_back(k);
  Kernel strided = mix.back();
  strided.work.global[0].stride_elements = 7;
  strided.work.shared = {1e8, 4, 32};
  mix.push_back(strided);
  return mix;
}

void BM_EstimateKernel(benchmark::State& state) {
  const GpuSpec g = h100_like();
  const std::vector<Kernel> mix = kernel_mix(g);
  std::size_t i = 0;
  for (auto _ : state) {
    const Kernel& k = mix[i];
    benchmark::DoNotOptimize(estimate_kernel(g, k.launch, k.work));
    i = i + 1 == mix.size() ? 0 : i + 1;
  }
  state.counters["evaluations_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EstimateKernel);

// Building a GEMM op: five candidate tiles, each estimated, plus the kernel description.
void BM_GemmTileChoice(benchmark::State& state) {
  const GpuSpec g = h100_like();
  std::int64_t m = 1024;
  for (auto _ : state) {
    benchmark::DoNotOptimize(gemm(g, {m, 4096, 4096, 1, Precision::bf16}));
    m = m == 8192 ? 1024 : m + 64;
  }
  state.counters["ops_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GemmTileChoice);

}  // namespace

BENCHMARK_MAIN();

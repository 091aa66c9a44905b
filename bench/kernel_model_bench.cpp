// Kernel-model evaluations per second, single-threaded (target: >= 1 million/s, since a training step
// holds thousands of kernels and a sweep thousands of steps). The GPU is built here with H100 SXM5
// numbers so the benchmark needs no spec files.
#include <benchmark/benchmark.h>

#include <vector>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/kernel_model.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/normalization.h"

using namespace hpcsim;

namespace {

// The shipped H100 SXM5 spec, so the benchmark times the model on the numbers users get.
GpuSpec h100_like() {
  return parse_gpu_spec(SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR).load("gpus", ConfigNode::make_scalar("h100-sxm5-80gb", SourceLoc{}), "GPU"), "h100-sxm5-80gb");
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

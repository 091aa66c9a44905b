// Properties of the analytical kernel model on a GPU built here (H100 SXM5-like numbers from its
// datasheet and the CUDA CC 9.0 tables), so the tests do not depend on the shipped spec files.
#include <algorithm>
#include <stdexcept>
#include <cmath>
#include <catch2/catch.hpp>

#include "models/gpu/host_transfer.h"
#include "models/gpu/kernel_model.h"

using namespace hpcsim;

namespace {

GpuSpec test_gpu() {
  GpuSpec g;
  g.name = "test-gpu";
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
  g.memory.hbm_bytes = 80e9;
  g.memory.hbm_bandwidth = 3.35e12;
  g.memory.l2_bytes = 50e6;
  g.memory.l2_bandwidth = 10e12;
  g.memory.l2_latency_cycles = 290;
  g.memory.hbm_latency_cycles = 700;
  g.vector_flops_per_clock_per_sm[static_cast<int>(Precision::fp32)] = 256;
  g.tensor_flops_per_clock_per_sm[static_cast<int>(Precision::bf16)] = 4096;
  g.sfu_lanes_per_sm = 16;
  g.matmul_fraction = 0.8;
  g.memory_fraction = 0.9;
  g.launch_overhead_s = 2e-6;
  return g;
}

KernelLaunch launch(std::int64_t blocks, int threads = 256, int regs = 32, int smem = 0) {
  return {blocks, threads, regs, smem};
}

// A streaming kernel over `bytes` read and as many written, `width` bytes per thread access.
KernelWork stream(double bytes, int width = 16, int stride = 1) {
  KernelWork w;
  w.add({bytes, -1, width, stride, false});
  w.add({bytes, -1, width, 1, true});
  return w;
}

}  // namespace

TEST_CASE("coalescing: sectors per requested byte grow with the lane stride up to one sector per lane") {
  CHECK(sector_inflation(4, 1, 32) == 1.0);
  CHECK(sector_inflation(4, 2, 32) == 2.0);
  CHECK(sector_inflation(4, 8, 32) == 8.0);
  CHECK(sector_inflation(4, 64, 32) == 8.0);  // every lane in its own sector: 32 B moved per 4 B used
  CHECK(sector_inflation(16, 1, 32) == 1.0);
  CHECK(sector_inflation(16, 2, 32) == 2.0);
  CHECK(sector_inflation(4, 0, 32) == Approx(1.0 / 4));  // a broadcast: one sector for the warp
  CHECK_THROWS_AS(sector_inflation(0, 1, 32), std::invalid_argument);
}

TEST_CASE("coalescing: stride 0 and 1 counted at once give the lane walk's sectors, bit for bit") {
  // The lane walk, as sector_inflation does it for every other stride.
  const auto walked = [](int element_bytes, int stride, int sector_bytes) {
    long long sectors = 0, last = -1;
    for (long long lane = 0; lane < 32; ++lane) {
      const long long start = lane * stride * element_bytes;
      const long long first = std::max(start / sector_bytes, last + 1);
      const long long end = (start + element_bytes - 1) / sector_bytes;
      if (end >= first) {
        sectors += end - first + 1;
        last = end;
      }
    }
    return static_cast<double>(sectors * sector_bytes) / (32 * element_bytes);
  };
  for (int element_bytes = 1; element_bytes <= 256; ++element_bytes) {
    for (int stride : {0, 1}) {
      for (int sector_bytes : {1, 3, 16, 32, 64, 128, 4096}) {
        INFO(element_bytes << " B, stride " << stride << ", " << sector_bytes << " B sectors");
        CHECK(sector_inflation(element_bytes, stride, sector_bytes) == walked(element_bytes, stride, sector_bytes));
      }
    }
  }
}

TEST_CASE("bank conflicts: the degree is the most distinct words one bank serves") {
  CHECK(bank_conflict_degree(4, 1, 32, 4) == 1.0);
  CHECK(bank_conflict_degree(4, 2, 32, 4) == 2.0);
  CHECK(bank_conflict_degree(4, 32, 32, 4) == 32.0);  // a column of a 32-wide float tile
  CHECK(bank_conflict_degree(4, 33, 32, 4) == 1.0);   // the padded tile
  CHECK(bank_conflict_degree(4, 0, 32, 4) == 1.0);    // broadcast
  CHECK(bank_conflict_degree(8, 1, 32, 4) == 1.0);    // two wavefronts, but that is the minimum
  CHECK(bank_conflict_degree(8, 2, 32, 4) == 2.0);
}

TEST_CASE("a large copy runs at the achievable HBM bandwidth and is memory bound") {
  const GpuSpec g = test_gpu();
  const double bytes = 4.0 * (1 << 30);
  const KernelTime t = estimate_kernel(g, launch(static_cast<std::int64_t>(bytes / 4096)), stream(bytes));
  CHECK(t.bound == Bound::memory);
  CHECK(t.hbm_bytes / (t.time_s - t.launch_s) == Approx(g.achievable_memory_bandwidth()).epsilon(1e-9));
  CHECK(t.bytes_per_s == Approx(g.achievable_memory_bandwidth()).epsilon(1e-3));  // the launch is 0.07 % of it
  CHECK(t.hbm_bytes == Approx(2 * bytes));
}

TEST_CASE("a tiny kernel costs the launch overhead, and launch and work add") {
  const GpuSpec g = test_gpu();
  const KernelTime t = estimate_kernel(g, launch(1), stream(4096));
  CHECK(t.bound == Bound::launch);
  CHECK(t.launch_s == g.launch_overhead_s);
  const double work = std::max({t.compute_s, t.lsu_s, t.smem_s, t.l2_s, t.hbm_s, t.latency_s});
  CHECK(work > 0);
  CHECK(work < t.launch_s);
  CHECK(t.time_s == Approx(t.launch_s + work).epsilon(1e-12));
}

TEST_CASE("strided loads move more sectors and take longer") {
  const GpuSpec g = test_gpu();
  const double bytes = 1 << 28;
  const KernelTime coalesced = estimate_kernel(g, launch(65536), stream(bytes, 4, 1));
  const KernelTime strided = estimate_kernel(g, launch(65536), stream(bytes, 4, 8));
  CHECK(strided.l2_bytes > coalesced.l2_bytes);
  CHECK(strided.hbm_bytes > coalesced.hbm_bytes);
  CHECK(strided.time_s > coalesced.time_s);
}

TEST_CASE("re-reads hit L2 while the working set fits and go to HBM when it does not") {
  const GpuSpec g = test_gpu();
  auto reread = [&](double unique) {
    KernelWork w;
    w.add({8 * unique, unique, 16, 1, false});
    return estimate_kernel(g, launch(65536), w);
  };
  CHECK(reread(10e6).hbm_bytes == Approx(10e6));
  CHECK(reread(500e6).hbm_bytes > 500e6 * 7);
}

TEST_CASE("more occupancy is never slower for a latency-bound kernel") {
  const GpuSpec g = test_gpu();
  KernelWork w;
  w.add({1 << 26, -1, 4, 1, false});  // scalar loads, one in flight per warp: latency bound
  double previous = 1e9;
  bool some_latency_bound = false;
  // Registers per thread set the blocks per SM: 255 -> 1 block of 256 threads ... 32 -> 8 blocks.
  for (int regs : {255, 128, 96, 64, 48, 40, 32}) {
    const KernelTime t = estimate_kernel(g, launch(65536, 256, regs), w);
    CHECK(t.time_s <= previous);
    some_latency_bound = some_latency_bound || t.bound == Bound::latency;
    previous = t.time_s;
  }
  CHECK(some_latency_bound);
  const KernelTime low = estimate_kernel(g, launch(65536, 256, 255), w);
  const KernelTime high = estimate_kernel(g, launch(65536, 256, 32), w);
  CHECK(low.occupancy < high.occupancy);
  CHECK(high.time_s < low.time_s);
}

TEST_CASE("bank conflicts slow a shared-memory-bound kernel") {
  const GpuSpec g = test_gpu();
  KernelWork w;
  w.shared = {1e10, 4, 1};
  const KernelTime clean = estimate_kernel(g, launch(1024, 256, 32, 16 << 10), w);
  w.shared.stride_elements = 32;
  const KernelTime conflicted = estimate_kernel(g, launch(1024, 256, 32, 16 << 10), w);
  CHECK(clean.bound == Bound::memory);
  CHECK(conflicted.time_s == Approx(32 * clean.time_s).epsilon(0.01));
}

TEST_CASE("branch divergence slows a compute-bound kernel") {
  const GpuSpec g = test_gpu();
  KernelWork w;
  w.flops = 1e12;
  w.ilp = 4;
  const KernelTime full = estimate_kernel(g, launch(132 * 8), w);
  w.active_lanes = 0.25;
  const KernelTime diverged = estimate_kernel(g, launch(132 * 8), w);
  CHECK(full.bound == Bound::compute);
  CHECK(w.flops / (full.time_s - full.launch_s) == Approx(g.peak(Precision::fp32, MathUnit::vector)).epsilon(1e-9));
  CHECK(diverged.time_s - diverged.launch_s == Approx(4 * (full.time_s - full.launch_s)).epsilon(1e-9));
}

TEST_CASE("special-function results add to the tensor math at 16 per SM per clock") {
  const GpuSpec g = test_gpu();
  KernelWork w;
  w.precision = Precision::bf16;
  w.unit = MathUnit::tensor;
  w.flops = 132 * 4096 * 1e6;  // 1e6 tensor clocks per SM at the full rate
  const KernelTime math = estimate_kernel(g, launch(132 * 4), w);
  w.special_ops = 132 * 16 * 2e5;  // 2e5 clocks per SM on its 16 special-function lanes
  const KernelTime both = estimate_kernel(g, launch(132 * 4), w);
  CHECK(math.special_s == 0);
  CHECK(both.special_s == Approx(2e5 / g.boost_clock_hz).epsilon(1e-12));
  CHECK(both.compute_s - math.compute_s == Approx(both.special_s).epsilon(1e-12));
  CHECK(both.bound == Bound::compute);
  GpuSpec none = g;
  none.sfu_lanes_per_sm = 0;
  CHECK_THROWS_WITH(estimate_kernel(none, launch(132), w), Catch::Contains("no special-function lanes"));
}

TEST_CASE("wave quantization: one block more than a full wave costs a second wave") {
  const GpuSpec g = test_gpu();
  KernelWork w;
  w.precision = Precision::bf16;
  w.unit = MathUnit::tensor;
  const KernelLaunch one_wave = launch(132, 256, 168, 200 << 10);  // one block per SM
  const KernelLaunch spill = launch(133, 256, 168, 200 << 10);
  w.flops = 132 * 1e9;
  const KernelTime a = estimate_kernel(g, one_wave, w);
  w.flops = 133 * 1e9;
  const KernelTime b = estimate_kernel(g, spill, w);
  CHECK(a.blocks_per_sm == 1);
  CHECK(b.time_s - b.launch_s == Approx(2 * (a.time_s - a.launch_s)).epsilon(1e-9));
}

TEST_CASE("impossible launches and missing units are errors") {
  const GpuSpec g = test_gpu();
  KernelWork w;
  w.flops = 1;
  CHECK_THROWS_WITH(estimate_kernel(g, launch(1, 1025), w), Catch::Contains("1025 threads per block"));
  CHECK_THROWS_WITH(estimate_kernel(g, launch(1, 256, 300), w), Catch::Contains("300 registers"));
  CHECK_THROWS_AS(estimate_kernel(g, launch(0), w), std::invalid_argument);
  w.precision = Precision::fp8;
  w.unit = MathUnit::tensor;
  CHECK_THROWS_WITH(estimate_kernel(g, launch(1), w), Catch::Contains("fp8"));
  for (int i = 0; i < kMaxGlobalAccesses; ++i) w.add({});
  CHECK_THROWS_AS(w.add({}), std::length_error);
}

TEST_CASE("same inputs give the same estimate") {
  const GpuSpec g = test_gpu();
  const KernelTime a = estimate_kernel(g, launch(12345), stream(1e9, 4, 3));
  const KernelTime b = estimate_kernel(g, launch(12345), stream(1e9, 4, 3));
  CHECK(a.time_s == b.time_s);
  CHECK(a.hbm_bytes == b.hbm_bytes);
}

TEST_CASE("a kernel's blocks' fixed latencies are the part of its math time named block_s") {
  const GpuSpec g = test_gpu();
  KernelWork w;
  w.precision = Precision::bf16;
  w.unit = MathUnit::tensor;
  w.flops = 132 * 4096 * 1e6;
  const KernelTime none = estimate_kernel(g, launch(132 * 4), w);
  w.block_latency_cycles = 1000;
  const KernelTime some = estimate_kernel(g, launch(132 * 4), w);
  CHECK(none.block_s == 0);
  const double rounds = std::ceil(4.0 / some.blocks_per_sm);  // 4 blocks per SM, blocks_per_sm at a time
  CHECK(some.block_s == Approx(rounds * 1000 / g.boost_clock_hz).epsilon(1e-12));
  CHECK(some.compute_s - none.compute_s == Approx(some.block_s).epsilon(1e-12));
}

TEST_CASE("host transfers: pinned copies at the PCIe payload rate, two streams overlap only from pinned memory", "[gpu][host]") {
  NetworkSpec pcie5;  // PCIe 5.0 x16 as configs/networks/pcie5.yaml: 512 Gb/s, 128b/130b, 256 B payload + 24 B
  pcie5.rate = 64e9;
  pcie5.lanes = 16;
  pcie5.encoding_efficiency = 128.0 / 130;
  pcie5.mtu_bytes = 256;
  pcie5.header_bytes = 24;
  pcie5.software_latency_s = 2e-6;
  // 57.6 GB/s: the H200's measured 55.4-55.5 GB/s pinned copies are 3.7-4.0 % below it (validation.md).
  CHECK(1e9 / (pinned_copy_s(pcie5, 16, 1e9) - 2e-6) == Approx(64e9 * 128 / 130 * 256 / 280));
  CHECK(pinned_copy_s(pcie5, 8, 1e9) - 2e-6 == Approx(2 * (pinned_copy_s(pcie5, 16, 1e9) - 2e-6)));
  CHECK_THROWS_AS(pinned_copy_s(pcie5, 0, 1e9), std::invalid_argument);
  CHECK(copy_then_kernel_s(HostMemory::pinned, 5, 4) == 5);
  CHECK(copy_then_kernel_s(HostMemory::pageable, 5, 4) == 9);
  CHECK(pageable_copy_s(38.0, 4.9) == 38.0);  // a host staging at 7 GB/s under a 55 GB/s link: the host's rate
  CHECK(pageable_copy_s(2.0, 4.9) == 4.9);    // a host faster than the link: the DMA's
  CHECK_THROWS_AS(pageable_copy_s(-1.0, 4.9), std::invalid_argument);
  CHECK(overlap_fraction(5, 4, 5) == Approx(1));
  CHECK(overlap_fraction(5, 4, 9) == Approx(0));
  CHECK_THROWS_AS(overlap_fraction(5, 0, 5), std::invalid_argument);
}

// The HPC description of CPU nodes (cpu_hpc_spec.h) and the OpenMP region roofline (omp_region.h).
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/cpu/omp_region.h"
#include "models/node/node_spec.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

NodeSpec shipped(const std::string& name) {
  return parse_node_spec(catalog().load("nodes", ConfigNode::make_scalar(name, {}), "node"), name, catalog());
}

std::string error_of(const std::string& cpu_extra) {
  const std::string yaml =
      "gpus: 0\nnics: {count: 1, rate: 100 Gb/s}\nhost_memory: 64 GB\n"
      "cpu:\n  sockets: 2\n  cores_per_socket: 16\n  clock: 2.1 GHz\n  flops_per_socket: 1 TFLOP/s\n"
      "  memory_bandwidth_per_socket: 100 GB/s\n" + cpu_extra;
  try {
    parse_node_spec(parse_config_text(yaml, "node.yaml"), "node", catalog());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Every CPU the HPC issue names ships with its HPC description", "[cpu][hpc][specs]") {
  for (const char* name : {"xeon-6130-2s", "xeon-8380-2s", "xeon-8480p-2s", "epyc-7763-2s", "epyc-9654-2s", "a64fx-fugaku",
                           "grace-superchip", "epyc-7742-2s", "epyc-7702-2s", "epyc-7h12-2s", "xeon-e5-2697v4-2s",
                           "xeon-max-9480-2s"}) {
    INFO(name);
    const NodeSpec n = shipped(name);
    REQUIRE(n.cpu.hpc.present());
    CHECK(n.cpu.hpc.clocks.vector_hz <= n.cpu.hpc.clocks.all_core_hz);
    CHECK(n.cpu.hpc.memory.stream_per_socket <= n.cpu.memory_bandwidth_per_socket);
    // The summary's FP64 peak per socket is the HPC description's arithmetic at the base clock (the older
    // xeon-8480p-2s summary is at its all-core clock).
    const double summary = n.cpu.sockets * n.cpu.flops_per_socket;
    CHECK(summary >= cpu_node_rpeak(n.cpu) * 0.999);
    CHECK(summary <= cpu_node_rpeak(n.cpu) * n.cpu.hpc.clocks.all_core_hz / n.cpu.hpc.clocks.base_hz * 1.001);
  }
  // A spec without the keys keeps its old meaning: nothing HPC about it.
  CHECK_FALSE(shipped("cpu-2s-generic").cpu.hpc.present());
  CHECK_FALSE(shipped("c7g-4xlarge").cpu.hpc.present());
  // c6i-2xlarge has carried them since issue 37: its licence clock is what inference GEMMs run at.
  CHECK(shipped("c6i-2xlarge").cpu.hpc.clocks.vector_hz < shipped("c6i-2xlarge").cpu.hpc.clocks.all_core_hz);
}

TEST_CASE("FLOP per cycle come from SIMD width and FMA pipes by precision", "[cpu][hpc]") {
  CpuVector avx512{512, 2};
  CHECK(avx512.flops_per_cycle(64) == 32);
  CHECK(avx512.flops_per_cycle(32) == 64);
  CHECK(CpuVector{256, 2}.flops_per_cycle(64) == 16);
  CHECK(CpuVector{128, 4}.flops_per_cycle(64) == 16);  // Neoverse V2
  // Skylake-SP's AVX-512 licence clock: DGEMM runs below the nominal clock the TOP500 counts.
  const CpuSpec skx = shipped("xeon-6130-2s").cpu;
  CHECK(cpu_core_vector_peak(skx) < skx.hpc.clocks.base_hz * 32);
}

TEST_CASE("Partial or inconsistent HPC descriptions are errors at their key", "[cpu][hpc][errors]") {
  const std::string full =
      "  clocks: {base: 2.1 GHz, all_core: 2.8 GHz, vector: 1.9 GHz}\n  vector: {simd_bits: 512, fma_pipes: 2}\n"
      "  memory: {channels_per_socket: 6, stream_per_socket: 90 GB/s, stream_per_core: 12 GB/s}\n  dgemm_efficiency: 0.9\n";
  CHECK(error_of(full).empty());
  CHECK_THAT(error_of("  vector: {simd_bits: 512, fma_pipes: 2}\n"), Catch::Contains("together"));
  CHECK_THAT(error_of("  numa: {domains_per_socket: 4}\n"), Catch::Contains("node.yaml:10:") && Catch::Contains("needs cpu.clocks"));
  std::string slow = full;
  slow.replace(slow.find("vector: 1.9"), 11, "vector: 3.9");
  CHECK_THAT(error_of(slow), Catch::Contains("cannot exceed the all-core clock"));
  std::string odd = full;
  odd.replace(odd.find("simd_bits: 512"), 14, "simd_bits: 384");
  CHECK_THAT(error_of(odd), Catch::Contains("128, 256 or 512"));
  std::string greedy = full;
  greedy.replace(greedy.find("stream_per_core: 12"), 19, "stream_per_core: 120");
  CHECK_THAT(error_of(greedy), Catch::Contains("cannot stream more than its socket"));
}

TEST_CASE("A socket's bandwidth saturates with thread count and is shared", "[cpu][hpc][omp]") {
  const CpuSpec cpu = shipped("epyc-7763-2s").cpu;
  const double per_core = cpu.hpc.memory.stream_per_core;
  CHECK(socket_bandwidth(cpu, 1) == Approx(per_core));
  CHECK(socket_bandwidth(cpu, 4) == Approx(4 * per_core));
  CHECK(socket_bandwidth(cpu, 64) == Approx(cpu.hpc.memory.stream_per_socket));
  // A STREAM-like AXPY: doubling threads helps until the socket saturates, then not at all.
  const HpcKernelWork axpy = axpy_work(1e8);
  auto t = [&](int threads) { return omp_region_time(cpu, axpy, {threads, 1, 0.0, 0}).memory_s; };
  CHECK(t(2) == Approx(t(1) / 2));
  CHECK(t(64) == Approx(t(32)));
  CHECK(t(64) > t(1) / 64 * 2);
  // Two sockets double it; remote first-touch slows it; other ranks' threads on the socket share it.
  CHECK(omp_region_time(cpu, axpy, {128, 2, 0.0, 0}).memory_s == Approx(t(64) / 2));
  CHECK(omp_region_time(cpu, axpy, {64, 1, 0.5, 0}).memory_s > t(64) * 1.4);
  CHECK(omp_region_time(cpu, axpy, {8, 1, 0.0, 64}).memory_s > t(8) * 2);
}

TEST_CASE("DGEMM is compute-bound at large sizes and memory-bound at small k", "[cpu][hpc][omp]") {
  const CpuSpec cpu = shipped("xeon-6130-2s").cpu;
  const OmpPlacement socket{16, 1, 0.0, 0};
  const OmpRegionTime big = omp_region_time(cpu, dgemm_work(8192, 8192, 512), socket);
  CHECK(big.compute_s > big.memory_s);
  const double rate = dgemm_work(8192, 8192, 512).flops / big.total_s;
  CHECK(rate == Approx(16 * cpu_core_vector_peak(cpu) * cpu.hpc.dgemm_efficiency).epsilon(0.01));
  const OmpRegionTime thin = omp_region_time(cpu, dgemm_work(8192, 8192, 8), socket);
  CHECK(thin.memory_s > thin.compute_s);
  // SpMV, stencil sweeps and dot products are bandwidth-bound on this socket.
  for (const HpcKernelWork& w : {spmv_work(1e6, 27e6), stencil_work(1e7, 7), dot_work(1e7)}) {
    const OmpRegionTime r = omp_region_time(cpu, w, socket);
    CHECK(r.memory_s > r.compute_s);
  }
  CHECK_THROWS_AS(omp_region_time(cpu, dot_work(10), {17, 1, 0.0, 0}), std::invalid_argument);
}

TEST_CASE("Fork/join and barrier costs grow with thread count", "[cpu][hpc][omp]") {
  CHECK(omp_fork_join_s(1) == 0);
  CHECK(omp_fork_join_s(2) < omp_fork_join_s(64));
  CHECK(omp_barrier_s(8) < omp_barrier_s(128));
  CHECK(omp_fork_join_s(128) < 10e-6);
}

TEST_CASE("A CPU's TDP is positive and a CPU node's max_power exceeds its packages' TDP", "[cpu][power][specs]") {
  CHECK(error_of("  tdp: 125 W\n").empty());
  CHECK(error_of("  tdp: 125 W\nmax_power: 400 W\n").empty());
  CHECK_THAT(error_of("  tdp: -5 W\n"), Catch::Contains("node.yaml:10:8:"));
  CHECK_THAT(error_of("  tdp: 0 W\n"), Catch::Contains("node.yaml:10:8:"));
  CHECK_THAT(error_of("  tdp: 125 W\nmax_power: 200 W\n"),
             Catch::Contains("node.yaml:11:12:") && Catch::Contains("packages' total TDP (250 W)"));
  CHECK(shipped("epyc-7763-2s").cpu.tdp_w == 280.0);  // AMD's default TDP
  CHECK(shipped("xeon-6130-2s").cpu.tdp_w == 125.0);  // Intel ARK
}

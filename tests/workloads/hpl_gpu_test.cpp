// GPU HPL, HPL-NVIDIA style (hpl_gpu.h): the update is the DGEMM work over the GPUs' FP64 rate times the
// DGEMM efficiency, Rpeak is the GPUs' FP64 peak, the panel on the host adds PCIe copies and host compute,
// N comes from the GPUs' memory, and the scenario's checks report at file:line:column.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/gpu/host_transfer.h"
#include "workloads/hpc/hpl_gpu.h"
#include "workloads/hpc/mpi_scenario.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

MpiScenario parse(const std::string& yaml) {
  return parse_mpi_scenario(parse_config_text(yaml, "gpu-hpl.yaml"), catalog(), "gpu-hpl");
}

std::string error_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

HplResult run(const MpiScenario& s) { return simulate_hpl(s.cluster, s.hpl, AnalyticMpiComm(s.cluster)); }

const char* kOneGpu =
    "kind: mpi\n"
    "cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}\n"
    "workload: {app: hpl, accelerator: gpu, n: 40960, nb: 512}\n";

}  // namespace

TEST_CASE("GPU HPL: update time is the DGEMM work over the GPU's FP64 rate x efficiency", "[hpl][gpu]") {
  const MpiScenario s = parse(kOneGpu);
  REQUIRE(s.hpl.accelerator == HplAccelerator::gpu);
  CHECK(s.ranks == 1);
  CHECK(s.hpl.gpu_dgemm_efficiency == kGpuDgemmEfficiency);
  const HplResult r = run(s);
  // One rank: iteration j updates (blocks - j) * nb rows by (blocks - j - 1) * nb columns, rank nb.
  const double nb = 512;
  const long long blocks = 40960 / 512;
  double work = 0;
  for (long long j = 0; j < blocks; ++j) {
    const double m = (blocks - j) * nb;
    const double n = (blocks - j - 1) * nb;
    work += 2 * m * n * nb + nb * nb * n;
  }
  const double a100_fp64 = 108 * 128 * 1.41e9;  // A100: FP64 tensor 128 FLOP/clk/SM, 108 SMs, 1.41 GHz
  CHECK(r.update_s == Approx(work / (a100_fp64 * 0.9)));
  CHECK(r.rpeak == Approx(a100_fp64));
  CHECK(r.gpus == 1);
  CHECK(r.rpeak_host == Approx(2 * 2.304e12));  // the DGX A100's two EPYC 7742, reported beside Rpeak
  CHECK(r.host_copy_s == 0);
  CHECK(r.efficiency < 0.9);
  CHECK(r.efficiency > 0.5);

  // Half the efficiency: twice the update time.
  std::string yaml = kOneGpu;
  yaml.replace(yaml.find("nb: 512}"), 8, "nb: 512, dgemm_efficiency: 0.45}");
  const HplResult half = run(parse(yaml));
  CHECK(half.update_s == Approx(2 * r.update_s));
  CHECK(half.time_s > 1.8 * r.time_s);
}

TEST_CASE("GPU HPL: the panel on the host costs PCIe copies and the host's FP64 rate", "[hpl][gpu]") {
  std::string yaml = kOneGpu;
  yaml.replace(yaml.find("nb: 512}"), 8, "nb: 512, panel: host}");
  const MpiScenario host_s = parse(yaml);
  CHECK(host_s.hpl.panel == HplPanel::host);
  const MpiScenario gpu_s = parse(kOneGpu);
  const HplResult gpu = run(gpu_s);
  const HplResult host = run(host_s);
  CHECK(host.update_s == Approx(gpu.update_s));  // the update stays on the GPU
  CHECK(gpu.host_copy_s == 0);
  CHECK(host.host_copy_s > 0);
  // One rank (P = 1: no pivot all-reduce): the panel is its FLOPs (m x nb^2 per iteration) at the GPU's
  // DGEMM rate plus one synchronization per column, or its copies plus the FLOPs at the host's rate (both
  // EPYC 7742 sockets drive the one GPU's rank).
  const double nb = 512;
  const long long blocks = 40960 / 512;
  double panel_flops = 0;
  for (long long j = 0; j < blocks; ++j) panel_flops += (blocks - j) * nb * nb * nb;
  const NodeSpec& node = gpu_s.cluster.node;
  CHECK(gpu.panel_s == Approx(panel_flops / (node.gpu.peak(Precision::fp64) * 0.9) + blocks * nb * node.gpu.launch_overhead_s));
  CHECK(host.panel_s == Approx(host.host_copy_s + panel_flops / (2 * 2.304e12 * 0.9)));
  // Each copy is the m_loc x nb panel over the GPU's PCIe Gen4 x16 link, down and back.
  double copies = 0;
  for (long long j = 0; j < blocks; ++j) copies += 2 * pinned_copy_s(*node.pcie.link, node.pcie.lanes, 8.0 * (blocks - j) * nb * nb);
  CHECK(host.host_copy_s == Approx(copies));
  // Eight ranks share the host: the host panel is slower than the GPU's, and without look-ahead all of
  // the difference shows in the run time.
  const std::string full = "kind: mpi\ncluster: {node: dgx-a100-80gb, nodes: 1}\n"
                           "workload: {app: hpl, accelerator: gpu, n: 80000, nb: 512, depth: 0";
  const HplResult g0 = run(parse(full + "}\n"));
  const HplResult h0 = run(parse(full + ", panel: host}\n"));
  CHECK(h0.panel_s > g0.panel_s);
  CHECK(h0.time_s - g0.time_s == Approx(h0.panel_s - g0.panel_s).epsilon(1e-6));
}

TEST_CASE("GPU HPL: one rank per GPU across nodes, N from the GPUs' memory, Rpeak of the GPUs", "[hpl][gpu]") {
  const MpiScenario s = parse(
      "kind: mpi\n"
      "cluster: {node: dgx-h100, nodes: 4, network: ib-ndr}\n"
      "workload: {app: hpl, accelerator: gpu, nb: 1024}\n");
  CHECK(s.ranks == 32);
  CHECK(s.hpl.ranks_per_node == 8);
  CHECK(s.hpl.p * s.hpl.q == 32);
  CHECK(s.n_from_memory);
  const double per_gpu = s.cluster.node.gpu.memory_bytes();
  CHECK(s.hpl.n == std::floor(std::sqrt(0.8 * per_gpu * 32 / 8) / 1024) * 1024);
  CHECK(8 * s.hpl.n * s.hpl.n / 32 <= 0.8 * per_gpu);
  const HplResult r = run(s);
  CHECK(r.nodes == 4);
  CHECK(r.rpeak == Approx(32 * 132 * 256 * 1.98e9));  // H100 SXM5: 66.9 TFLOP/s FP64 tensor each
  CHECK(r.efficiency < 0.9);
  CHECK(r.bcast_s > 0);
  CHECK(r.swap_s > 0);
  // A slower network costs more.
  const MpiScenario slow = parse(
      "kind: mpi\n"
      "cluster: {node: dgx-h100, nodes: 4, network: eth-10g-tcp}\n"
      "workload: {app: hpl, accelerator: gpu, nb: 1024}\n");
  CHECK(run(slow).time_s > r.time_s);
}

TEST_CASE("GPU HPL: hostile input is reported at file:line:column", "[hpl][gpu]") {
  // More ranks per node than GPUs.
  CHECK(error_of("kind: mpi\ncluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}\nmpi: {ranks_per_node: 9}\n"
                 "workload: {app: hpl, accelerator: gpu}\n")
            .find("gpu-hpl.yaml:3:") != std::string::npos);
  // A node without GPUs.
  const std::string no_gpu = error_of(
      "kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 2, network: ib-hdr}\nworkload: {app: hpl, accelerator: gpu}\n");
  CHECK(no_gpu.find("gpu-hpl.yaml:3:") != std::string::npos);
  CHECK(no_gpu.find("needs GPUs") != std::string::npos);
  // GPU-only keys on a CPU run.
  CHECK(error_of("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 2, network: ib-hdr}\nworkload: {app: hpl, panel: host}\n")
            .find("GPU HPL only") != std::string::npos);
  // A matrix beyond the GPUs' memory (80 GB each: N = 200,000 needs 320 GB on one GPU).
  const std::string big = error_of(
      "kind: mpi\ncluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}\n"
      "workload:\n  app: hpl\n  accelerator: gpu\n  n: 200000\n");
  CHECK(big.find("gpu-hpl.yaml:6:6") != std::string::npos);
  CHECK(big.find("per GPU") != std::string::npos);
  // Out-of-range efficiency, unknown panel place, keys of another application.
  CHECK(error_of(std::string(kOneGpu).replace(std::string(kOneGpu).find("nb: 512}"), 8, "nb: 512, dgemm_efficiency: 1.5}"))
            .find("gpu-hpl.yaml:3:") != std::string::npos);
  CHECK(error_of(std::string(kOneGpu).replace(std::string(kOneGpu).find("nb: 512}"), 8, "nb: 512, panel: cpu}"))
            .find("gpu-hpl.yaml:3:") != std::string::npos);
  CHECK(error_of("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 1}\nworkload: {app: hpcg, accelerator: gpu}\n")
            .find("read by hpl") != std::string::npos);
}

TEST_CASE("GPU HPL: CPU HPL is untouched by the new keys", "[hpl][gpu]") {
  const MpiScenario cpu = parse("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 4, network: ib-hdr}\n"
                                "workload: {app: hpl, n: 100000}\n");
  const MpiScenario cpu_explicit = parse("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 4, network: ib-hdr}\n"
                                         "workload: {app: hpl, n: 100000, accelerator: cpu}\n");
  CHECK(cpu.hpl.accelerator == HplAccelerator::cpu);
  const HplResult a = run(cpu);
  const HplResult b = run(cpu_explicit);
  CHECK(a.time_s == b.time_s);
  CHECK(a.gpus == 0);
  CHECK(a.rpeak_host == 0);
}

// HPL through the kind: mpi model at the sizes issue 35 names: N = 500,000 on 1,024 ranks (32 two-socket
// EPYC 7763 nodes, 32 ranks per node x 4 threads) and a 6,000-node run with one rank per socket, N from
// 80 % of memory; each with the analytic MPI back end and with the fabric one (mpi.network_model: fabric,
// FabricMpiComm). Prints wall time, iterations, peak memory and the predicted Rmax.
//
// Usage (from the source root): hpl_bench [configs dir=configs]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "workloads/hpc/fabric_mpi_comm.h"
#include "workloads/hpc/mpi_scenario.h"

using namespace hpcsim;

namespace {

long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

void run(const SpecCatalog& catalog, const char* label, const std::string& yaml) {
  const auto t0 = std::chrono::steady_clock::now();
  const MpiScenario s = parse_mpi_scenario(parse_config_text(yaml, "bench.yaml"), catalog, label);
  std::unique_ptr<MpiComm> comm;
  if (s.network_model == MpiNetworkModel::fabric) {
    comm = std::make_unique<FabricMpiComm>(s.cluster);
  } else {
    comm = std::make_unique<AnalyticMpiComm>(s.cluster);
  }
  const HplResult r = simulate_hpl(s.cluster, s.hpl, *comm);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-34s N=%.0f NB=%d P x Q=%d x %d  %lld panels  Rmax %.1f TFLOP/s (%.1f %% of Rpeak)  wall %.4f s  peak RSS %ld KiB\n",
              label, s.hpl.n, s.hpl.nb, s.hpl.p, s.hpl.q, static_cast<long long>((s.hpl.n + s.hpl.nb - 1) / s.hpl.nb),
              r.flop_rate / 1e12, 100 * r.efficiency, wall, peak_rss_kib());
}

}  // namespace

int main(int argc, char** argv) {
  const SpecCatalog catalog(argc > 1 ? argv[1] : "configs");
  run(catalog, "1,024 ranks, N = 500,000",
      "kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 32, network: ib-hdr}\n"
      "mpi: {ranks_per_node: 32, threads_per_rank: 4}\nworkload: {app: hpl, n: 500000, nb: 256, p: 32, q: 32}\n");
  run(catalog, "6,000 nodes, 1 rank per socket",
      "kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 6000, network: ib-hdr,\n"
      "  topology: {kind: fat-tree, levels: 3, radix: 40}}\nworkload: {app: hpl, nb: 256}\n");
  run(catalog, "1,024 ranks, N = 500,000, fabric",
      "kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 32, network: ib-hdr}\n"
      "mpi: {ranks_per_node: 32, threads_per_rank: 4, network_model: fabric}\n"
      "workload: {app: hpl, n: 500000, nb: 256, p: 32, q: 32}\n");
  run(catalog, "6,000 nodes, 1 rank per socket, fabric",
      "kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 6000, network: ib-hdr,\n"
      "  topology: {kind: fat-tree, levels: 3, radix: 40}}\nmpi: {network_model: fabric}\n"
      "workload: {app: hpl, nb: 256}\n");
  return 0;
}

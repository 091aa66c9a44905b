// The stencil, CG, HPCG and SPMD applications of `kind: mpi` (stencil_app.h, hpcg_app.h, spmd_program.h):
// their operation counts, the decomposition, overlap, the hybrid MPI x OpenMP mechanism, and the parser's
// errors at file:line:column.
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/hpc/mpi_scenario.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

MpiScenario parse(const std::string& yaml) {
  return parse_mpi_scenario(parse_config_text(yaml, "app.yaml"), catalog(), "app");
}

SpmdResult run(const std::string& yaml) {
  const MpiScenario s = parse(yaml);
  return simulate_mpi_app(s, AnalyticMpiComm(s.cluster));
}

std::string error_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const std::string kCluster = "kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 8, network: ib-hdr}\n";

std::string stencil(const std::string& mpi, const std::string& extra = "") {
  return kCluster + "mpi: " + mpi + "\nworkload: {app: stencil, grid: [1024, 1024, 1024], iterations: 10" + extra + "}\n";
}

}  // namespace

TEST_CASE("stencil: FLOPs, the balanced decomposition and the grind time", "[mpi-apps]") {
  const MpiScenario s = parse(stencil("{ranks_per_node: 64, threads_per_rank: 2}"));
  const SpmdResult r = simulate_mpi_app(s, AnalyticMpiComm(s.cluster));
  CHECK(r.grid.dims == std::array<int, 3>{8, 8, 8});  // 512 ranks on a cube: 8 x 8 x 8
  CHECK(r.flops == Approx(2.0 * 7 * 1024.0 * 1024 * 1024 * 10));
  CHECK(r.time_s == Approx(10 * r.iteration_s));
  // 128^3 boxes: six faces of 128^2 doubles, an interior rank sends all six.
  CHECK(r.halo_bytes_per_rank == Approx(6 * 128.0 * 128 * 8));
  CHECK(r.iteration_s == Approx(r.compute_s + r.halo_s));  // no overlap
  // A 27-point stencil exchanges edges and corners too.
  const SpmdResult r27 = run(stencil("{ranks_per_node: 64, threads_per_rank: 2}", ", points: 27"));
  CHECK(r27.halo_bytes_per_rank == Approx(8 * (6 * 128.0 * 128 + 12 * 128 + 8)));
  // An elongated grid is cut across its long side.
  const SpmdResult flat = run(kCluster + "workload: {app: stencil, dims: 2, grid: [65536, 256]}\n");
  CHECK(flat.grid.dims[0] > flat.grid.dims[1]);
}

TEST_CASE("stencil: overlap hides the halo behind the interior sweep", "[mpi-apps]") {
  const std::string mpi = "{ranks_per_node: 128, threads_per_rank: 1}";
  const SpmdResult plain = run(stencil(mpi, ", ghost: 2, fields: 5"));
  const SpmdResult hidden = run(stencil(mpi, ", ghost: 2, fields: 5, overlap: true"));
  CHECK(hidden.flops == Approx(plain.flops));
  CHECK(hidden.iteration_s < plain.iteration_s);
  CHECK(hidden.iteration_s >= std::max(plain.compute_s, plain.halo_s) * (1 - 1e-9));
  CHECK(hidden.halo_bytes_per_rank == Approx(plain.halo_bytes_per_rank));
}

TEST_CASE("CG: an SpMV and two all-reduces per iteration", "[mpi-apps]") {
  const SpmdResult cg = run(stencil("{ranks_per_node: 2, threads_per_rank: 64}", ", method: cg"));
  const double cells = 1024.0 * 1024 * 1024;
  CHECK(cg.flops == Approx(10 * (2 * 7 * cells + 2 * 2 * cells + 3 * 2 * cells)));
  CHECK(cg.allreduce_s > 0);
  const SpmdResult one = run(kCluster + "mpi: {ranks_per_node: 2, threads_per_rank: 64}\n"
                                        "workload: {app: spmd, phases: [{allreduce: {bytes: 8}}]}\n");
  CHECK(cg.allreduce_s == Approx(2 * one.allreduce_s));
}

TEST_CASE("hybrid MPI x OpenMP: halo traffic falls with fewer ranks, a socket's bandwidth caps the threads", "[mpi-apps][hybrid]") {
  // The same 1024^3 job on 8 nodes (256 cores each... 128 cores each) as 1 rank per core down to 1 per socket.
  double last_node_bytes = 1e300;
  for (const auto& [ranks, threads] : {std::pair{128, 1}, {32, 4}, {8, 16}, {2, 64}}) {
    INFO(ranks << " ranks x " << threads << " threads");
    const SpmdResult r = run(stencil("{ranks_per_node: " + std::to_string(ranks) + ", threads_per_rank: " +
                                     std::to_string(threads) + "}"));
    const double node_bytes = r.halo_bytes_per_rank * ranks;  // an interior node's ranks, all neighbours
    CHECK(node_bytes < last_node_bytes);
    last_node_bytes = node_bytes;
  }
  // One rank's compute on one socket: threads help until the socket's STREAM bandwidth is reached
  // (170 GB/s over 25 GB/s per core: about 7 threads), then not at all.
  auto sweep = [&](int threads) {
    return run("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 1}\nmpi: {ranks: 1, ranks_per_node: 1, threads_per_rank: " +
               std::to_string(threads) + "}\nworkload: {app: stencil, grid: [512, 512, 512], iterations: 1}\n")
        .compute_s;
  };
  CHECK(sweep(1) / sweep(4) == Approx(4).epsilon(0.02));
  CHECK(sweep(16) == Approx(sweep(64)).epsilon(0.01));
  CHECK(sweep(4) / sweep(64) < 2.0);
}

TEST_CASE("HPCG: reference operation count, bandwidth-bound rate, memory-sized box", "[mpi-apps][hpcg]") {
  const MpiScenario s = parse(kCluster + "mpi: {ranks_per_node: 8, threads_per_rank: 16}\nworkload: {app: hpcg}\n");
  CHECK(s.hpcg.local == std::array<int, 3>{104, 104, 104});
  const SpmdResult r = simulate_mpi_app(s, AnalyticMpiComm(s.cluster));
  const HpcgCounts counts = hpcg_counts(s.hpcg, r.grid);
  CHECK(r.flops == Approx(counts.flops));
  CHECK(counts.rows == Approx(64 * 104.0 * 104 * 104));
  // Below the STREAM roofline of the 8 nodes at SpMV's intensity (2 FLOP per 12 bytes and more).
  const double stream = 8 * 2 * s.cluster.node.cpu.hpc.memory.stream_per_socket;
  CHECK(r.flop_rate < stream * 2.0 / 12.0);
  CHECK(r.flop_rate > stream * 0.1);
  CHECK(r.allreduce_s > 0);
  // A node without room for 104^3 per rank gets the largest cube that fits, and a note.
  const MpiScenario small = parse("kind: mpi\ncluster: {node: a64fx-fugaku, nodes: 4, network: tofu-d}\n"
                                  "mpi: {ranks_per_node: 48, threads_per_rank: 1}\nworkload: {app: hpcg}\n");
  CHECK(small.hpcg.local[0] < 104);
  CHECK(small.hpcg.local[0] % 8 == 0);
  CHECK(small.notes.size() == 1);
}

TEST_CASE("spmd: phases from YAML", "[mpi-apps][spmd]") {
  const std::string head = kCluster + "mpi: {ranks_per_node: 16, threads_per_rank: 8}\n";
  const SpmdResult r = run(head + "workload: {app: spmd, iterations: 20, decomposition: 2, phases: [\n"
                                  "  {compute: {flops: 1e9, bytes: 4e9, kernel: stencil}},\n"
                                  "  {halo: {bytes: 1e6}, overlap: true}, {compute: {flops: 1e8, bytes: 1e8}},\n"
                                  "  {allreduce: {bytes: 8}}, {alltoall: {bytes: 1024}}, {p2p: {bytes: 1e6, distance: 64}}]}\n");
  CHECK(r.grid.dims[2] == 1);
  CHECK(r.flops == Approx(128 * 20 * 1.1e9));
  CHECK(r.halo_s > 0);
  CHECK(r.alltoall_s > 0);
  CHECK(r.p2p_s > 0);
  CHECK(r.iteration_s < r.compute_s + r.halo_s + r.allreduce_s + r.alltoall_s + r.p2p_s);  // the halo is hidden
  // Partners 64 ranks away sit on other nodes (16 per node): every rank of a node sends off node.
  CHECK(r.offnode_bytes_per_node >= 16 * 1e6);
}

TEST_CASE("mpi apps: hostile input at file:line:column", "[mpi-apps][errors]") {
  CHECK(error_of(kCluster + "workload: {app: stencil, grid: [64, 64, 64], points: 9}\n").find("app.yaml:3:") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: stencil, grid: [64, 64]}\n").find("needs 3") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: stencil, grid: [64, 64, 64], nb: 256}\n").find("read by hpl") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: hpcg, local: [100, 100, 100]}\n").find("multiple of 8") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: hpcg, local: [4096, 4096, 4096]}\n").find("GB per node") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: spmd}\n").find("needs workload.phases") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: spmd, phases: [{allreduce: {bytes: 8}, alltoall: {bytes: 8}}]}\n")
            .find("several") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: spmd, phases: [{allreduce: {bytes: 8}, overlap: true}]}\n")
            .find("none follows") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: trace}\n").find("hpcsim replay") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: stencil, grid: [2, 2, 2]}\n").find("without a cell") != std::string::npos);
  CHECK(error_of(kCluster + "workload: {app: stencil, grid: [100000, 100000, 100000]}\n").find("GB per node") !=
        std::string::npos);
}

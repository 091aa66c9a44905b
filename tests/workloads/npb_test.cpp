// The NAS Parallel Benchmarks of `kind: mpi` (npb_app.h): the operation counts NPB reports Mop/s with, the
// programs' own FLOPs against them, MG's layer condition, the communication of the MPI versions, and the
// parser's errors at file:line:column.
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
  return parse_mpi_scenario(parse_config_text(yaml, "npb.yaml"), catalog(), "npb");
}

SpmdResult run(const std::string& yaml) {
  const MpiScenario s = parse(yaml);
  return simulate_mpi_app(s, AnalyticMpiComm(s.cluster));
}

std::string npb(const std::string& bench, const std::string& cls, int nodes = 1, const std::string& mpi = "") {
  return "kind: mpi\ncluster: {node: epyc-7763-2s, nodes: " + std::to_string(nodes) + ", network: ib-hdr}\n" +
         (mpi.empty() ? "" : "mpi: " + mpi + "\n") + "workload: {app: npb, benchmark: " + bench + ", class: " + cls + "}\n";
}

std::string error_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

double bytes_of(const std::vector<SpmdPhase>& phases) {
  double b = 0;
  for (const SpmdPhase& p : phases) b += p.kind == SpmdPhaseKind::compute ? p.work.bytes : 0;
  return b;
}

}  // namespace

TEST_CASE("npb: the operation counts of NPB 3.4's Mop/s", "[npb]") {
  // cg.f: 2 niter na (3 + nz + 25 (5 + nz) + 3), nz = nonzer (nonzer + 1); class A: na 14000, nonzer 11, 15.
  CHECK(npb_mop({NpbBenchmark::cg, 'A'}) == Approx(2.0 * 15 * 14000 * (3 + 132 + 25 * 137 + 3) * 1e-6));
  CHECK(npb_mop({NpbBenchmark::mg, 'A'}) == Approx(58.0 * 4 * 256 * 256 * 256 * 1e-6));  // mg.f
  CHECK(npb_mop({NpbBenchmark::is, 'C'}) == Approx(10.0 * (1 << 27) * 1e-6));            // is.c
  CHECK(npb_mop({NpbBenchmark::ft, 'B'}) > npb_mop({NpbBenchmark::ft, 'A'}));
  CHECK(npb_class_valid(NpbBenchmark::cg, 'E'));
  CHECK_FALSE(npb_class_valid(NpbBenchmark::is, 'E'));
  CHECK_FALSE(npb_class_valid(NpbBenchmark::mg, 'Q'));
}

TEST_CASE("npb: CG's and MG's programs do the work NPB counts", "[npb]") {
  // CG: 26 SpMVs per outer iteration and the vector operations; within 1 % of cg.f's formula.
  const MpiScenario cg = parse(npb("cg", "B"));
  const SpmdResult rc = simulate_mpi_app(cg, AnalyticMpiComm(cg.cluster));
  CHECK(rc.flops == Approx(npb_mop(cg.npb) * 1e6).epsilon(0.01));
  CHECK(rc.iterations == 75);
  // MG: NPB's 58 FLOP per finest point per iteration, plus the residual timed before the loop.
  const MpiScenario mg = parse(npb("mg", "B"));
  const SpmdResult rm = simulate_mpi_app(mg, AnalyticMpiComm(mg.cluster));
  CHECK(rm.flops > npb_mop(mg.npb) * 1e6);
  CHECK(rm.flops < 1.05 * npb_mop(mg.npb) * 1e6);
  // The report's rate is NPB's count over the time.
  CHECK(npb_mop(mg.npb) / rm.time_s > 0);
}

TEST_CASE("npb: MG past the layer condition reads the stencil array three times", "[npb]") {
  const NpbConfig c{NpbBenchmark::mg, 'C'};
  const SpmdProgram fits = npb_program(c, 1, 1e12);
  const SpmdProgram spills = npb_program(c, 1, 1e3);
  const double ratio = bytes_of(spills.iteration) / bytes_of(fits.iteration);
  // The finest level's three 27-point sweeps go from 3 to 5 arrays (12.25 -> 18.25 arrays with the others).
  CHECK(ratio > 1.4);
  CHECK(ratio < 1.55);
  // On a real cache: three 512^2 planes (6 MiB) do not fit an EPYC 7763 thread's 0.5 MiB L2 and 4 MiB L3
  // share, three 256^2 planes (1.5 MiB) do: only the finest level spills.
  const MpiScenario s = parse(npb("mg", "C", 1, "{ranks_per_node: 1, threads_per_rank: 128}"));
  const double finest_spill = bytes_of(s.spmd.iteration) / bytes_of(fits.iteration);
  CHECK(finest_spill > 1.3);
  CHECK(finest_spill < ratio);
}

TEST_CASE("npb: the MPI versions communicate as NPB does", "[npb]") {
  // FT: one all-to-all of the slab per 3D FFT on several ranks, none on one.
  const SpmdResult one = run(npb("ft", "C", 1, "{ranks_per_node: 1, threads_per_rank: 128}"));
  CHECK(one.alltoall_s == 0);
  const SpmdResult many = run(npb("ft", "C", 4, "{ranks_per_node: 8, threads_per_rank: 16}"));
  CHECK(many.alltoall_s > 0);
  CHECK(many.offnode_bytes_per_node > 0);
  CHECK(many.time_s < one.time_s);
  // IS: the keys all-to-all grows with the keys; CG: the row reductions are point-to-point messages.
  const SpmdResult is_c = run(npb("is", "C", 4, "{ranks_per_node: 4, threads_per_rank: 32}"));
  const SpmdResult is_d = run(npb("is", "D", 4, "{ranks_per_node: 4, threads_per_rank: 32}"));
  CHECK(is_d.alltoall_s > 4 * is_c.alltoall_s);
  CHECK(is_c.flops == 0);
  const SpmdResult cg = run(npb("cg", "C", 4, "{ranks_per_node: 4, threads_per_rank: 32}"));
  CHECK(cg.p2p_s > 0);
  CHECK(cg.grid.dims == std::array<int, 3>{4, 4, 1});
}

TEST_CASE("npb: errors at file:line:column", "[npb]") {
  CHECK(error_of(npb("is", "E")).find("npb.yaml:3:") == 0);
  CHECK(error_of(npb("is", "E")).find("has classes SWABCD") != std::string::npos);
  CHECK(error_of(npb("cg", "A", 1, "{ranks_per_node: 3, threads_per_rank: 4}")).find("power-of-two") != std::string::npos);
  CHECK(error_of(npb("ft", "E", 1)).find("GB per node") != std::string::npos);
  CHECK(error_of(npb("ft", "S", 128, "{ranks_per_node: 1}")).find("at most 64 ranks") != std::string::npos);
  CHECK(error_of(npb("cg", "Q")).find("npb.yaml:3:") == 0);  // not one of the classes (schema)
  CHECK(error_of("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 1, network: ib-hdr}\n"
                 "workload: {app: stencil, grid: [64, 64, 64], benchmark: cg}\n")
            .find("read by npb") != std::string::npos);
  CHECK(error_of("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 1, network: ib-hdr}\nworkload: {app: npb, class: A}\n")
            .find("benchmark") != std::string::npos);
}

// HPL's structure (hpl_model.h) and the `kind: mpi` scenario's checks (mpi_scenario.h).
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/cpu/omp_region.h"
#include "workloads/hpc/mpi_scenario.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

const char* kBase =
    "kind: mpi\n"
    "cluster: {node: epyc-7763-2s, nodes: 16, network: ib-hdr}\n"
    "mpi: {ranks_per_node: 2, threads_per_rank: 64}\n"
    "workload: {app: hpl, n: 300000, nb: 256, p: 4, q: 8}\n";

MpiScenario parse(const std::string& yaml) {
  return parse_mpi_scenario(parse_config_text(yaml, "hpl.yaml"), catalog(), "hpl");
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

HplResult run_with(std::string yaml, const std::string& from, const std::string& to) {
  yaml.replace(yaml.find(from), from.size(), to);
  return run(parse(yaml));
}

}  // namespace

TEST_CASE("HPL: FLOP count, Rpeak at the nominal clock, efficiency below the DGEMM's", "[hpl]") {
  const MpiScenario s = parse(kBase);
  const HplResult r = run(s);
  CHECK(r.flops == Approx(2.0 / 3.0 * 3e5 * 3e5 * 3e5 + 1.5 * 3e5 * 3e5));
  CHECK(r.rpeak == Approx(16 * 2 * 64 * 2.45e9 * 16));
  CHECK(r.efficiency < s.cluster.node.cpu.hpc.dgemm_efficiency);
  CHECK(r.efficiency > 0.5);
  CHECK(r.time_s >= r.update_s);
  CHECK(r.time_s == Approx(r.update_s + r.exposed_s).epsilon(0.02));  // the rest is the solve and the fill
}

TEST_CASE("HPL: look-ahead hides the panel, the slower network costs more, a tiny NB starves the update", "[hpl]") {
  const HplResult base = run(parse(kBase));
  const HplResult no_lookahead = run_with(kBase, "nb: 256,", "nb: 256, depth: 0,");
  CHECK(no_lookahead.time_s > base.time_s);
  const HplResult ethernet = run_with(kBase, "ib-hdr", "eth-25g-tcp");
  CHECK(ethernet.time_s > base.time_s);
  CHECK(ethernet.swap_s > base.swap_s);
  const HplResult long_bcast = run_with(kBase, "nb: 256,", "nb: 256, bcast: long,");
  CHECK(long_bcast.bcast_s > base.bcast_s);
  // A tiny NB makes the trailing DGEMM memory-bound (rank-8 updates): the update alone takes longer.
  const HplResult tiny_nb = run_with(kBase, "nb: 256", "nb: 8");
  CHECK(tiny_nb.update_s > base.update_s * 1.5);
}

TEST_CASE("HPL: N from 80 % of memory, and 1 rank per core against 1 per socket", "[hpl]") {
  std::string yaml = kBase;
  yaml.replace(yaml.find("n: 300000, "), 11, "");
  const MpiScenario s = parse(yaml);
  CHECK(s.n_from_memory);
  CHECK(s.hpl.n == Approx(std::floor(std::sqrt(0.8 * 256e9 * 16 / 8) / 256) * 256));
  CHECK(static_cast<long long>(s.hpl.n) % 256 == 0);
  std::string flat = kBase;
  flat.replace(flat.find("ranks_per_node: 2, threads_per_rank: 64"), 39, "ranks_per_node: 128, threads_per_rank: 1");
  flat.replace(flat.find("p: 4, q: 8"), 10, "p: 32, q: 64");
  const HplResult per_core = run(parse(flat));
  const HplResult per_socket = run(parse(kBase));
  CHECK(per_core.rpeak == Approx(per_socket.rpeak));
  CHECK(per_core.nodes == per_socket.nodes);
  // 128 ranks share each node's NIC for the row swaps: more exposed communication than 2 ranks do.
  CHECK(per_core.swap_s > per_socket.swap_s);
}

TEST_CASE("kind: mpi refuses impossible runs at file:line:column", "[hpl][errors]") {
  auto with = [](const std::string& from, const std::string& to) {
    std::string y = kBase;
    y.replace(y.find(from), from.size(), to);
    return error_of(y);
  };
  CHECK_THAT(with("ranks_per_node: 2,", "ranks: 40, ranks_per_node: 2,"),
             Catch::Contains("hpl.yaml:3:14:") && Catch::Contains("P x Q = 4 x 8 = 32 is not mpi.ranks 40"));
  CHECK_THAT(with("n: 300000, nb: 256", "n: 100, nb: 256"), Catch::Contains("hpl.yaml:4:") && Catch::Contains("NB 256 is larger than N 100"));
  CHECK_THAT(with("threads_per_rank: 64", "threads_per_rank: 65"),
             Catch::Contains("hpl.yaml:3:") && Catch::Contains("oversubscription is not modelled"));
  CHECK_THAT(with("p: 4, q: 8", "p: 8, q: 8"), Catch::Contains("64 ranks at 2 per node need 32 nodes; the cluster has 16"));
  // HPL's keys on another application are refused at the key; trace is replayed by `hpcsim replay`.
  CHECK_THAT(with("app: hpl", "app: hpcg"), Catch::Contains("hpl.yaml:4:") && Catch::Contains("read by hpl, not by app hpcg"));
  CHECK_THAT(with("app: hpl", "app: trace"), Catch::Contains("hpl.yaml:4:") && Catch::Contains("hpcsim replay"));
  CHECK_THAT(with("epyc-7763-2s", "cpu-2s-generic"), Catch::Contains("hpl.yaml:2:") && Catch::Contains("no HPC description"));
  CHECK_THAT(with("p: 4, q: 8", "p: 4"), Catch::Contains("give both workload.p and workload.q"));
  CHECK_THAT(with("n: 300000", "n: 3000000"), Catch::Contains("GB per node"));
  CHECK(error_of(kBase).empty());
}

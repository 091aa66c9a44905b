// FabricMpiComm (workloads/hpc/fabric_mpi_comm.h): MpiComm answered by MpiWorld on the cluster's fabric,
// against the analytic back end it must agree with where both model the same thing, and where it differs
// by mechanism (rendezvous handshake, ring all-reduce, eager threshold per network spec); the kind: mpi
// scenario's mpi.network_model key.
#include <catch2/catch.hpp>

#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/mpi/shm_latency.h"
#include "workloads/hpc/fabric_mpi_comm.h"
#include "workloads/hpc/hpl_model.h"
#include "workloads/hpc/mpi_scenario.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

ClusterConfig cluster(const std::string& network = "ib-hdr", int nodes = 16) {
  const ConfigNode c = parse_config_text("cluster:\n  node: epyc-7763-2s\n  nodes: " + std::to_string(nodes) +
                                             "\n  network: " + network + "\n",
                                         "comm.yaml");
  return parse_cpu_cluster(c.at("cluster"), catalog());
}

const char* kHpl =
    "kind: mpi\n"
    "cluster: {node: epyc-7763-2s, nodes: 16, network: ib-hdr}\n"
    "mpi: {ranks_per_node: 2, threads_per_rank: 64, network_model: fabric}\n"
    "workload: {app: hpl, n: 200000, nb: 256, p: 4, q: 8}\n";

}  // namespace

TEST_CASE("fabric MpiComm: an eager message costs what the analytic back end prices, plus o at both ends", "[mpi][fabric]") {
  const ClusterConfig c = cluster();
  const FabricMpiComm fabric(c);
  const AnalyticMpiComm analytic(c);
  const double o = c.network->mpi_overhead_s;
  CHECK(o > 0);
  CHECK(fabric.model().eager_threshold == c.network->eager_threshold_bytes);
  for (double bytes : {8.0, 1024.0, 16384.0}) {
    INFO(bytes << " B");
    // The fabric's NIC carries packet headers: its payload rate is a little below the analytic one.
    CHECK(fabric.message_s(bytes, false, 1) == Approx(analytic.message_s(bytes, false, 1) + 2 * o).epsilon(0.01));
  }
  // Four ranks of a node sending at once share its NIC port.
  const double one = fabric.message_s(32768, false, 1) - fabric.message_s(8, false, 1);
  const double four = fabric.message_s(32768, false, 4) - fabric.message_s(8, false, 1);
  CHECK(four == Approx(4 * one).epsilon(0.01));
  CHECK(fabric.message_s(0, false, 1) == 0);
}

TEST_CASE("fabric MpiComm: a rendezvous pays one more latency, per the network's eager threshold", "[mpi][fabric]") {
  ClusterConfig c = cluster();
  const double bytes = 1 << 20;
  const double latency = AnalyticMpiComm(c).network_latency_s();
  const FabricMpiComm rendezvous(c);
  REQUIRE(bytes >= rendezvous.model().eager_threshold);
  c.network->eager_threshold_bytes = 2 * bytes;  // the spec key: now the same message goes eager
  const FabricMpiComm eager(c);
  CHECK(rendezvous.message_s(bytes, false, 1) - eager.message_s(bytes, false, 1) == Approx(latency).epsilon(1e-3));
}

TEST_CASE("fabric MpiComm: shared memory inside a node starts at the one shared-memory latency", "[mpi][fabric]") {
  const FabricMpiComm fabric(cluster());
  CHECK(fabric.message_s(1, true, 1) == Approx(kShmLatencyS).epsilon(0.01));
  CHECK(AnalyticMpiComm(cluster()).message_s(1, true, 1) == Approx(kShmLatencyS).epsilon(0.01));
  CHECK(fabric.message_s(1 << 20, true, 1) > fabric.message_s(1 << 10, true, 1));
}

TEST_CASE("fabric MpiComm: all-reduces run Open MPI's algorithms over point-to-point", "[mpi][fabric]") {
  const ClusterConfig c = cluster();
  const FabricMpiComm fabric(c);
  const AnalyticMpiComm analytic(c);
  // Small: recursive doubling, log2(8) = 3 rounds of one message (with its o at both ends), as the
  // analytic back end counts.
  const double o = c.network->mpi_overhead_s;
  CHECK(fabric.allreduce_s(2080, 8, 1) == Approx(analytic.allreduce_s(2080, 8, 1) + 3 * 2 * o).epsilon(0.02));
  // Large: the ring moves 2 (n-1)/n of the buffer instead of log2(n) whole buffers.
  const double big = 64.0 * (1 << 20);
  const double ring = fabric.allreduce_s(big, 8, 1);
  CHECK(ring < 0.8 * analytic.allreduce_s(big, 8, 1));
  CHECK(ring > 2.0 * 7 / 8 * big / analytic.node_bandwidth());
  // Two all-reduces at once on the same nodes share the NIC ports.
  CHECK(fabric.allreduce_s(big, 8, 2) > 1.8 * ring);
  CHECK(fabric.allreduce_s(2080, 1, 1) == 0);
}

TEST_CASE("kind: mpi: mpi.network_model fabric runs HPL on the fabric back end", "[mpi][fabric][hpl]") {
  const MpiScenario s = parse_mpi_scenario(parse_config_text(kHpl, "hpl.yaml"), catalog(), "hpl");
  CHECK(s.network_model == MpiNetworkModel::fabric);
  const HplResult fabric = simulate_hpl(s.cluster, s.hpl, FabricMpiComm(s.cluster));
  const HplResult analytic = simulate_hpl(s.cluster, s.hpl, AnalyticMpiComm(s.cluster));
  CHECK(fabric.update_s == analytic.update_s);  // compute is not the network's
  CHECK(fabric.bcast_s > analytic.bcast_s);     // panel messages above the eager threshold pay the handshake
  CHECK(fabric.time_s == Approx(analytic.time_s).epsilon(0.05));
  std::string yaml = kHpl;
  yaml.replace(yaml.find("network_model: fabric"), 21, "network_model: packet");
  try {
    parse_mpi_scenario(parse_config_text(yaml, "hpl.yaml"), catalog(), "hpl");
    FAIL("accepted network_model: packet");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("hpl.yaml:3:") == 0);
  }
  yaml = kHpl;
  yaml.replace(yaml.find(", network_model: fabric"), 23, "");
  CHECK(parse_mpi_scenario(parse_config_text(yaml, "hpl.yaml"), catalog(), "hpl").network_model == MpiNetworkModel::analytic);
}

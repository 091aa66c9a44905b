// OSU micro-benchmarks through the MPI point-to-point model on hpcsim's network specs (osu_benchmark.h):
// osu_latency (half a ping-pong), osu_bw / osu_mbw_mr (a window of 64 messages, then an acknowledgement) and
// osu_bibw (both directions at once), replayed as traces on a two-node cluster, against the published
// rows of tests/data/mpi/osu-rows.yaml: within 15 %, except the rows marked `outside` (with the reason),
// which must stay outside.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "configs/config_error.h"
#include "models/network/network_spec.h"
#include "models/platform/cluster_config.h"
#include "workloads/mpi_replay/osu_benchmark.h"

namespace hpcsim {
namespace {

ClusterConfig two_nodes(const std::string& node, const std::string& network) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode c = parse_config_text("cluster:\n  node: " + node + "\n  nodes: 2\n  network: " + network + "\n", "osu.yaml");
  return parse_cpu_cluster(c.at("cluster"), catalog);
}

double latency_us(const std::string& node, const std::string& network, double bytes) {
  return osu_result(two_nodes(node, network), {OsuBenchmark::latency, bytes, 1});
}

double bandwidth_MBps(const std::string& node, const std::string& network, double bytes, int pairs, bool both_ways) {
  return osu_result(two_nodes(node, network), {both_ways ? OsuBenchmark::bibw : OsuBenchmark::bw, bytes, pairs});
}

TEST_CASE("OSU rows: 0-byte latency and large-message bandwidth from the network specs") {
  const ConfigNode doc = load_config_file(std::string(HPCSIM_TEST_DATA_DIR) + "/mpi/osu-rows.yaml");
  int inside = 0, outside = 0;
  for (const ConfigNode& row : doc.at("rows").items()) {
    const std::string id = row.get_string("id"), bench = row.get_string("benchmark");
    const std::string node = row.get_string("node"), network = row.get_string("network");
    const double bytes = row.get_number("bytes");
    double model = 0, measured = 0;
    if (bench == "latency") {
      model = latency_us(node, network, bytes);
      measured = row.get_number("latency_us");
    } else {
      model = bandwidth_MBps(node, network, bytes, static_cast<int>(row.get_int_or("pairs", 1)), bench == "bibw");
      measured = row.get_number("bandwidth_MBps");
    }
    const double error = model / measured - 1;
    std::printf("osu %-24s model %10.3f measured %10.3f error %+6.1f %%\n", id.c_str(), model, measured, 100 * error);
    INFO(id << ": model " << model << ", measured " << measured << ", error " << 100 * error << " %");
    if (row.has("outside")) {
      CHECK(std::abs(error) > 0.15);
      ++outside;
    } else {
      CHECK(std::abs(error) <= 0.15);
      ++inside;
    }
  }
  CHECK(inside + outside >= 10);
}

TEST_CASE("the model's 0-byte latency is the network spec's software latency, one switch hop and o at both ends") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const NetworkSpec hdr = parse_network_spec(catalog.load("networks", ConfigNode::make_scalar("ib-hdr", SourceLoc{"test"}), "network"), "ib-hdr");
  CHECK(hdr.mpi_overhead_s > 0);
  CHECK(latency_us("cpu-2s-generic", "ib-hdr", 0) ==
        Approx((hdr.software_latency_s + hdr.switch_latency_s + 2 * hdr.mpi_overhead_s) * 1e6).epsilon(1e-6));
  // A large message runs at the NIC port's payload rate (200 Gb/s, 4096 B MTU with 26 B of headers).
  CHECK(bandwidth_MBps("cpu-2s-generic", "ib-hdr", 1 << 26, 1, false) ==
        Approx(hdr.payload_bandwidth() / 1e6).epsilon(0.01));
}

TEST_CASE("OSU cases: the p2p validation rows are the test's rows, and their errors are located") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode doc = load_config_file(std::string(HPCSIM_TEST_DATA_DIR) + "/mpi/osu-rows.yaml");
  for (const ConfigNode& row : doc.at("rows").items()) {
    const std::string id = row.get_string("id");
    INFO(id);
    const std::string file = std::string(HPCSIM_SOURCE_CONFIG_DIR) + "/validation/p2p/" + id + ".yaml";
    const OsuCase c = parse_osu_case(load_config_file(file), catalog, id);
    CHECK(c.cluster.network->name == row.get_string("network"));
    CHECK(c.run.bytes == row.get_number("bytes"));
    CHECK(c.measured->value == row.get_number(osu_metric(c.run.benchmark)));
  }
  auto error_of = [&](const std::string& yaml) -> std::string {
    try {
      parse_osu_case(parse_config_text(yaml, "osu.yaml"), catalog, "osu");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  const std::string cluster = "cluster: {node: cpu-2s-generic, nodes: 2, network: ib-hdr}\n";
  const std::string m = "measured: {metric: latency_us, value: 1, unit: us, source: s, category: p2p, family: f}\n";
  CHECK(error_of(cluster + "osu: {benchmark: latency, bytes: 0, pairs: 2}\n" + m).find("osu.yaml:2:") == 0);
  CHECK(error_of(cluster + "osu: {benchmark: bw, bytes: 8}\n" + m).find("bandwidth_MBps") != std::string::npos);
  CHECK(error_of(cluster + "osu: {benchmark: pingpong, bytes: 0}\n" + m).find("osu.yaml:2:") == 0);
  CHECK(error_of("cluster: {node: cpu-2s-generic, nodes: 1, network: ib-hdr}\nosu: {benchmark: latency, bytes: 0}\n" + m)
            .find("two nodes") != std::string::npos);
}

}  // namespace
}  // namespace hpcsim

// OSU micro-benchmarks through the MPI point-to-point model on hpcsim's network specs: osu_latency
// (half a ping-pong), osu_bw / osu_mbw_mr (a window of 64 messages, then an acknowledgement) and
// osu_bibw (both directions at once), replayed as traces on a two-node cluster, against the published
// rows of tests/data/mpi/osu-rows.yaml: within 15 %, except the rows marked `outside` (with the reason),
// which must stay outside.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "configs/catalog.h"
#include "configs/loader.h"
#include "models/mpi/fabric_machine.h"
#include "models/network/network_spec.h"
#include "models/platform/cluster_config.h"
#include "workloads/mpi_replay/ti_replay.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {
namespace {

constexpr int kWindow = 64;  // OSU's osu_bw window

double run(const std::string& node, const std::string& network, const std::string& trace, int ranks_per_node) {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode c = parse_config_text("cluster:\n  node: " + node + "\n  nodes: 2\n  network: " + network + "\n", "osu.yaml");
  const ClusterConfig cluster = parse_cpu_cluster(c.at("cluster"), catalog);
  FabricMachine m(cluster);
  const TiTrace t = parse_ti_trace(trace, "osu.txt");
  ReplayOptions o;
  o.model = mpi_message_model(*cluster.network);  // the spec's eager threshold and MPI overhead o
  for (int r = 0; r < t.ranks; ++r) o.rank_host.push_back(r / ranks_per_node);
  return replay_ti_trace(t, m, o).time_s;
}

std::string line(int rank, const std::string& what) { return std::to_string(rank) + " " + what + "\n"; }

// osu_latency: one-way latency = round trip / 2, averaged over the iterations.
double latency_us(const std::string& node, const std::string& network, double bytes) {
  const int iterations = 10;
  const std::string b = std::to_string(static_cast<long long>(bytes));
  std::string t;
  for (int i = 0; i < iterations; ++i)
    t += line(0, "send 1 0 " + b) + line(1, "recv 0 0 " + b) + line(1, "send 0 0 " + b) + line(0, "recv 1 0 " + b);
  return run(node, network, t, 1) / (2 * iterations) * 1e6;
}

// osu_bw / osu_mbw_mr (pairs: rank p on node 0 sends to rank pairs + p on node 1) and osu_bibw (both ways).
double bandwidth_MBps(const std::string& node, const std::string& network, double bytes, int pairs, bool both_ways) {
  const int iterations = 4;
  const std::string b = std::to_string(static_cast<long long>(bytes));
  std::string t;
  for (int i = 0; i < iterations; ++i)
    for (int p = 0; p < pairs; ++p) {
      const int s = p, r = pairs + p;
      for (int w = 0; w < kWindow; ++w) {
        t += line(s, "isend " + std::to_string(r) + " " + std::to_string(w) + " " + b);
        t += line(r, "irecv " + std::to_string(s) + " " + std::to_string(w) + " " + b);
        if (both_ways) {
          t += line(r, "isend " + std::to_string(s) + " " + std::to_string(w + kWindow) + " " + b);
          t += line(s, "irecv " + std::to_string(r) + " " + std::to_string(w + kWindow) + " " + b);
        }
      }
      t += line(s, "waitall") + line(r, "waitall");
      t += line(r, "send " + std::to_string(s) + " 999 4") + line(s, "recv " + std::to_string(r) + " 999 4");
    }
  const double seconds = run(node, network, t, pairs);
  return bytes * kWindow * iterations * pairs * (both_ways ? 2 : 1) / seconds / 1e6;
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

}  // namespace
}  // namespace hpcsim

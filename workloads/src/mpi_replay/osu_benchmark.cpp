#include "workloads/mpi_replay/osu_benchmark.h"

#include <stdexcept>

#include "configs/config_error.h"
#include "models/mpi/fabric_machine.h"
#include "models/mpi/message_model.h"
#include "workloads/mpi_replay/ti_replay.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {

namespace {

std::string line(int rank, const std::string& what) { return std::to_string(rank) + " " + what + "\n"; }

double replay(const ClusterConfig& cluster, const std::string& trace, int ranks_per_node) {
  FabricMachine machine(cluster);
  const TiTrace t = parse_ti_trace(trace, "osu.txt");
  ReplayOptions o;
  o.model = mpi_message_model(*cluster.network);  // the spec's eager threshold and MPI overhead o
  for (int r = 0; r < t.ranks; ++r) o.rank_host.push_back(r / ranks_per_node);
  return replay_ti_trace(t, machine, o).time_s;
}

double latency_us(const ClusterConfig& cluster, double bytes) {
  const int iterations = 10;
  const std::string b = std::to_string(static_cast<long long>(bytes));
  std::string t;
  for (int i = 0; i < iterations; ++i) {
    t += line(0, "send 1 0 " + b) + line(1, "recv 0 0 " + b) + line(1, "send 0 0 " + b) + line(0, "recv 1 0 " + b);
  }
  return replay(cluster, t, 1) / (2 * iterations) * 1e6;
}

double bandwidth_MBps(const ClusterConfig& cluster, double bytes, int pairs, bool both_ways) {
  const int iterations = 4;
  const std::string b = std::to_string(static_cast<long long>(bytes));
  std::string t;
  for (int i = 0; i < iterations; ++i) {
    for (int p = 0; p < pairs; ++p) {
      const int s = p, r = pairs + p;
      for (int w = 0; w < kOsuWindow; ++w) {
        t += line(s, "isend " + std::to_string(r) + " " + std::to_string(w) + " " + b);
        t += line(r, "irecv " + std::to_string(s) + " " + std::to_string(w) + " " + b);
        if (both_ways) {
          t += line(r, "isend " + std::to_string(s) + " " + std::to_string(w + kOsuWindow) + " " + b);
          t += line(s, "irecv " + std::to_string(r) + " " + std::to_string(w + kOsuWindow) + " " + b);
        }
      }
      t += line(s, "waitall") + line(r, "waitall");
      t += line(r, "send " + std::to_string(s) + " 999 4") + line(s, "recv " + std::to_string(r) + " 999 4");
    }
  }
  const double seconds = replay(cluster, t, pairs);
  return bytes * kOsuWindow * iterations * pairs * (both_ways ? 2 : 1) / seconds / 1e6;
}

}  // namespace

const char* osu_metric(OsuBenchmark b) { return b == OsuBenchmark::latency ? "latency_us" : "bandwidth_MBps"; }

double osu_result(const ClusterConfig& cluster, const OsuRun& run) {
  if (cluster.nodes < 2) throw std::invalid_argument("an OSU benchmark runs between two nodes");
  if (run.benchmark == OsuBenchmark::latency) return latency_us(cluster, run.bytes);
  return bandwidth_MBps(cluster, run.bytes, run.pairs, run.benchmark == OsuBenchmark::bibw);
}

const Schema& osu_case_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      optional("name", Schema::string(), "the case's name in validate's rows", "the file's name"),
      optional("description", Schema::string(), "free text (not read)", "none"),
      required("cluster", cluster_schema(), "the two nodes' spec (any node with the row's NIC rate) and the network"),
      required("osu",
               Schema::map({
                   required("benchmark", Schema::one_of(kOsuBenchmarkNames.names()),
                            "latency (osu_latency), bw (osu_bw), mbw_mr (osu_mbw_mr), bibw (osu_bibw)"),
                   required("bytes", Schema::number().at_least(0).at_most(1e12), "the message size"),
                   optional("pairs", Schema::integer().at_least(1).at_most(1024),
                            "bandwidth benchmarks: sender ranks on the first node (osu_mbw_mr's ppn)", "1"),
               }),
               "the OSU micro-benchmark and its message size"),
      required("measured", measured_schema({Schema::one_of({"latency_us", "bandwidth_MBps"}),
                                            "latency_us (osu_latency) or bandwidth_MBps (the bandwidth benchmarks)",
                                            Schema::one_of({"p2p"}), false}),
               "the published row"),
  });
  return schema;
}

OsuCase parse_osu_case(const ConfigNode& root, const SpecCatalog& catalog, const std::string& default_name) {
  osu_case_schema().validate(root);
  OsuCase c;
  c.name = root.get_string_or("name", default_name);
  const ConfigNode& cluster = root.at("cluster");
  c.cluster = parse_cpu_cluster(cluster, catalog);
  if (c.cluster.nodes < 2) throw ConfigError(cluster.loc(), "an OSU benchmark runs between two nodes: give nodes: 2");
  const ConfigNode& osu = root.at("osu");
  c.run.benchmark = *kOsuBenchmarkNames.parse(osu.at("benchmark").as_string());
  c.run.bytes = osu.get_number("bytes");
  if (const ConfigNode* pairs = osu.find("pairs")) {
    if (c.run.benchmark == OsuBenchmark::latency) {
      throw ConfigError(pairs->loc(), "osu_latency is one pair of ranks: pairs is read by bw, mbw_mr and bibw");
    }
    c.run.pairs = static_cast<int>(pairs->as_int());
  }
  const ConfigNode& m = root.at("measured");
  c.measured = parse_measured(m);
  if (c.measured->metric != osu_metric(c.run.benchmark)) {
    throw ConfigError(m.at("metric").loc(), std::string("osu ") + std::string(kOsuBenchmarkNames.name(c.run.benchmark)) +
                                                " is read in " + osu_metric(c.run.benchmark) + ", not " +
                                                c.measured->metric);
  }
  return c;
}

}  // namespace hpcsim

#pragma once
// The OSU micro-benchmarks (OMB 5-7) as time-independent traces replayed on two nodes of a cluster
// (ti_replay.h on a FabricMachine, with the network spec's eager threshold and MPI overhead o):
// osu_latency (half a ping-pong, averaged over iterations), osu_bw / osu_mbw_mr (`pairs` sender ranks on
// node 0, each posting a window of 64 non-blocking sends to its partner on node 1, then a 4-byte
// acknowledgement) and osu_bibw (the window both ways). An `osu:` case file (configs/validation/p2p/) is one
// published row: the cluster, the benchmark and its message size, and a `measured:` section (latency_us or
// bandwidth_MBps), scored by `hpcsim validate` in the p2p category of its HPC cases.
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "models/platform/cluster_config.h"
#include "workloads/measured.h"

namespace hpcsim {

enum class OsuBenchmark { latency, bw, mbw_mr, bibw };
inline constexpr EnumNames<OsuBenchmark, 4> kOsuBenchmarkNames{{{
    {OsuBenchmark::latency, "latency"}, {OsuBenchmark::bw, "bw"}, {OsuBenchmark::mbw_mr, "mbw_mr"},
    {OsuBenchmark::bibw, "bibw"}}}};

inline constexpr int kOsuWindow = 64;  // osu_bw's window of messages in flight

struct OsuRun {
  OsuBenchmark benchmark = OsuBenchmark::latency;
  double bytes = 0;
  int pairs = 1;  // bw, mbw_mr, bibw: sender ranks on node 0 (osu_mbw_mr's ppn)
};

// osu_latency's one-way latency in microseconds, or the bandwidth benchmarks' MB/s (10^6 bytes per second,
// as OMB prints them). std::invalid_argument when the cluster has fewer than two nodes.
double osu_result(const ClusterConfig& cluster, const OsuRun& run);
// The metric osu_result is read in: latency_us or bandwidth_MBps.
const char* osu_metric(OsuBenchmark benchmark);

struct OsuCase {
  std::string name;
  ClusterConfig cluster;
  OsuRun run;
  std::optional<Measurement> measured;
};

const Schema& osu_case_schema();
// A validated `osu:` case: ConfigError at file:line:column for an unknown key, benchmark or spec, a
// `measured.metric` that is not the benchmark's, pairs on osu_latency, fewer than two nodes.
OsuCase parse_osu_case(const ConfigNode& root, const SpecCatalog& catalog, const std::string& default_name);

}  // namespace hpcsim

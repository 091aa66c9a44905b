// Chakra execution traces: Chakra's ET-feeder test trace (tests/data/traces/chakra/chakra.0.et.gz, the
// repository's tests/data/feeder_tests_trace.tar.gz member gzip-compressed; Apache-2.0, LICENSE.md).
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <zlib.h>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/collectives/collective_group.h"
#include "models/platform/cluster_config.h"
#include "models/platform/platform.h"
#include "workloads/trace/chakra_trace.h"

using namespace hpcsim;

namespace {

const std::string kEt = std::string(HPCSIM_TEST_DATA_DIR) + "/traces/chakra/chakra.0.et.gz";

}  // namespace

// The counts come from the file read with a 30-line protobuf wire-format decoder in Python (no protobuf
// library): 3,665 delimited messages, the metadata then 3,664 nodes.
TEST_CASE("the Chakra fixture parses and its dependency graph is whole", "[trace]") {
  if (!chakra_supported()) {
    WARN("built without protobuf: Chakra import not tested");
    return;
  }
  const ChakraTrace t = read_chakra_trace(kEt);
  CHECK(t.nodes.size() == 3664);
  const ChakraGraphCheck c = check_chakra_graph(t);
  CHECK(c.nodes_by_type[static_cast<int>(ChakraNodeType::comp)] == 3643);
  CHECK(c.nodes_by_type[static_cast<int>(ChakraNodeType::comm_coll)] == 21);
  CHECK(c.ctrl_edges == 3664);
  CHECK(c.data_edges == 181878);
  CHECK(c.dangling_data == 0);   // no dangling data dependency
  CHECK(c.dangling_ctrl == 1277);  // op-tree parents outside this rank's file (the root, id 3)
  CHECK(c.duplicate_ids == 0);
  CHECK(c.acyclic);
  const auto coll = std::find_if(t.nodes.begin(), t.nodes.end(), [](const ChakraNode& n) { return n.id == 435; });
  REQUIRE(coll != t.nodes.end());
  CHECK(coll->comm_type == 5);  // BROADCAST
  CHECK(coll->comm_size == 212480);
  CHECK(coll->duration_s == Approx(28e-6));
  CHECK_FALSE(coll->is_cpu_op);
}

TEST_CASE("the Chakra fixture replays on a described platform", "[trace]") {
  if (!chakra_supported()) return;
  const ChakraTrace t = read_chakra_trace(kEt);
  const TraceGraph g = chakra_graph(t);
  REQUIRE(g.ops.size() == t.nodes.size());
  const ClusterConfig cluster =
      parse_cluster(parse_config_text("cluster: {node: dgx-a100-80gb, nodes: 1}", "p.yaml").at("cluster"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
  Platform platform(cluster);
  TraceFabric fabric{&platform, CollectiveGroup::first(platform.fabric(), 8)};
  const TraceReplayResult r = replay_trace(g, &fabric);
  // Every data dependency honoured.
  for (const auto& [before, after] : g.deps) CHECK(r.start_s[after] >= r.end_s[before] - 1e-12);
  // Pinned: the replay's step time on one DGX A100 (8 ranks over NVSwitch).
  CHECK(r.makespan_s == Approx(0.297046).epsilon(1e-6));  // hpcsim import chakra ... --format json: 0.297046
  CHECK(r.collective_busy_s > 0);
  // Without a platform the collectives take their recorded durations: their time differs, the step (bound by
  // the serial compute stream) does not.
  const TraceReplayResult recorded = replay_trace(g);
  CHECK(recorded.collective_busy_s != Approx(r.collective_busy_s));
  CHECK(recorded.makespan_s == Approx(r.makespan_s));
}

TEST_CASE("a truncated or foreign Chakra file is an error naming it", "[trace]") {
  if (!chakra_supported()) return;
  gzFile f = gzopen(kEt.c_str(), "rb");
  std::string raw;
  char buf[65536];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) raw.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  const std::string base = (std::filesystem::temp_directory_path() / ("hpcsim-chakra-" + std::to_string(::getpid()))).string();
  const std::string cut = base + "-cut.et";
  std::ofstream(cut, std::ios::binary) << raw.substr(0, raw.size() / 3);
  CHECK_THROWS_WITH(read_chakra_trace(cut), Catch::Contains(cut + ": truncated Chakra trace") && Catch::Contains("at byte"));
  const std::string text = base + "-text.et";
  std::ofstream(text) << "this is not protobuf\n";
  CHECK_THROWS_AS(read_chakra_trace(text), ConfigError);
  std::remove(cut.c_str());
  std::remove(text.c_str());
}

#pragma once
// `hpcsim replay`: a time-independent MPI trace replayed on a platform: a SimGrid XML platform file (ranks
// on its hosts in --hostfile order, round robin, SimGrid SMPI's message model and collective selector by
// default) or an hpcsim YAML file with a cluster: section (ranks filling each node's cores in turn, a
// real MPI's message model over the network spec and Open MPI's collective rules by default).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "configs/catalog.h"
#include "report/replay_report.h"
#include "store/results_store.h"
#include "workloads/mpi_replay/ti_replay.h"

namespace hpcsim {

struct ReplayRequest {
  std::string trace;     // trace or description file
  std::string platform;  // .xml: SimGrid; otherwise hpcsim YAML with a cluster: section
  std::string hostfile;  // SimGrid platforms: host names, one per line (default: the platform's hosts)
  std::optional<int> ranks;           // --np
  std::optional<int> ranks_per_node;  // YAML clusters (default: the node's cores)
  bool oversubscribe = false;         // YAML clusters: more ranks than cores on a node
  std::string model;                  // "", smpi, mpi
  std::string selector;               // "", smpi, ompi
  std::vector<std::string> coll;      // OP=ALGORITHM overrides, as given
  std::optional<double> eager_bytes;  // the mpi model's eager threshold
  int timeline_lanes = 0;             // ranks kept as timeline lanes, evenly spread (0: no timeline)
  bool critical_path = false;
  std::function<void(std::uint64_t begun, std::uint64_t total)> progress;  // actions begun, of the trace's
};

struct ReplayRun {
  ReplayResult result;
  ReplaySummary summary;
  RunRecord record;  // for the results store: kind "replay", the request and both files' hashes as its text
};

// `lanes` ranks of `ranks`, evenly spread from the first to the last (all of them when lanes >= ranks).
std::vector<int> timeline_ranks(int ranks, int lanes);

// Bad input (files, flags, trace, platform) is a ConfigError "file:line:column: ..." or "--flag: ...".
ReplayRun run_replay(const ReplayRequest& request, const SpecCatalog& catalog);

}  // namespace hpcsim

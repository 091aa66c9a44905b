#pragma once
// The output of `hpcsim replay`: the simulated time and, per rank, its host and the time it spent
// computing, moving data and waiting for a peer; as a table or as one JSON object.
#include <string>
#include <vector>

#include "workloads/mpi_replay/ti_replay.h"

namespace hpcsim {

struct ReplaySummary {
  std::string trace, platform;
  std::string model;     // message model (smpi, mpi)
  std::string selector;  // collective rules (smpi, ompi)
  std::vector<std::string> rank_hosts;
};

std::string replay_table(const ReplayResult& result, const ReplaySummary& summary);
std::string replay_json(const ReplayResult& result, const ReplaySummary& summary);

}  // namespace hpcsim

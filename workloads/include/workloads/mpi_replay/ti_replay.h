#pragma once
// Replays a time-independent trace on an MpiMachine: each rank runs its actions in order on MpiWorld
// (compute on its host's cores, point-to-point through the fair-share network, collectives expanded by
// the selected algorithm into point-to-point), and the run reports the simulated time and, per rank, the
// time spent computing, moving data and waiting for a peer (blocked before the awaited data started to
// move). A trace that deadlocks, or waits on nothing it posted, is a ConfigError at the action.
#include <cstdint>
#include <vector>

#include "models/mpi/message_model.h"
#include "models/mpi/mpi_collectives.h"
#include "models/mpi/mpi_machine.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {

struct ReplayOptions {
  MessageModel model;
  CollSelector selector{CollSelector::Rules::smpi};
  std::vector<int> rank_host;  // host of each rank (trace.ranks entries)
};

struct RankTimes {
  double end_s = 0;
  double compute_s = 0;
  double communication_s = 0;
  double waiting_s = 0;
  std::uint64_t actions = 0;
};

struct ReplayResult {
  double time_s = 0;  // the last rank's end
  std::vector<RankTimes> ranks;
  std::uint64_t actions = 0;
  std::uint64_t messages = 0;  // point-to-point messages, collectives' included
};

ReplayResult replay_ti_trace(const TiTrace& trace, MpiMachine& machine, const ReplayOptions& options);

}  // namespace hpcsim

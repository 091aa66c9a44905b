#pragma once
// Replays a time-independent trace on an MpiMachine: each rank runs its actions in order on MpiWorld
// (compute on its host's cores, point-to-point through the fair-share network, collectives expanded by
// the selected algorithm into point-to-point), and the run reports the simulated time and, per rank, the
// time spent computing, moving data and waiting for a peer (blocked before the awaited data started to
// move). A trace that deadlocks, or waits on nothing it posted, is a ConfigError at the action.
// On request it also keeps the chosen ranks' activity as time segments (a timeline) and follows the
// critical path: the chain of activities and messages that ends at the last rank's end, followed as the replay
// runs (no graph of its actions is kept, so sim-core's critical_path over an ExecutionGraph does not apply).
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "models/mpi/message_model.h"
#include "models/mpi/mpi_collectives.h"
#include "models/mpi/mpi_machine.h"
#include "workloads/mpi_replay/ti_trace.h"

namespace hpcsim {

struct ReplayOptions {
  MessageModel model;
  CollSelector selector{CollSelector::Rules::smpi};
  std::vector<int> rank_host;      // host of each rank (trace.ranks entries)
  std::vector<int> timeline_ranks;  // ranks whose segments the result keeps (none: no timeline)
  std::size_t timeline_limit = 1'000'000;  // segments kept at most; the rest are counted, not kept
  bool critical_path = false;
  // Called now and then with the actions begun so far and the trace's total (a progress line): a large
  // trace of collectives replays for minutes.
  std::function<void(std::uint64_t begun, std::uint64_t total)> progress;
};

enum class RankActivity : std::uint8_t { compute, communication, waiting };
std::string_view activity_name(RankActivity activity);

// A stretch of one rank's time in one activity (adjacent stretches of the same activity are one).
struct RankSegment {
  int rank = 0;
  RankActivity activity = RankActivity::compute;
  double start_s = 0, end_s = 0;
};

// The time the critical path spends on one rank.
struct CriticalPathRank {
  int rank = 0;
  double s = 0;
};

// The critical path: from the start to the last rank's end, through each rank's own compute and
// communication, jumping to the peer whose message a waiting rank was released by (at the moment that
// message started to move). Its parts add up to the simulated time.
struct ReplayCriticalPath {
  double compute_s = 0;
  double communication_s = 0;  // a rank's time in MPI calls while its awaited data moved (latency included)
  double other_s = 0;          // the remainder: from a peer's post to its data's start (a late match)
  std::uint64_t hops = 0;      // messages the path follows from one rank to another
  int end_rank = 0;            // the rank that ends last, where the path ends
  // The time it spends on each rank it passes through, the longest first; with the gaps between a post and
  // its data's start (part of other_s) they add up to the simulated time.
  std::vector<CriticalPathRank> by_rank;
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
  std::vector<RankSegment> timeline;  // options.timeline_ranks' segments in the order they ended
  std::uint64_t timeline_dropped = 0;  // segments beyond options.timeline_limit
  std::optional<ReplayCriticalPath> critical_path;
};

ReplayResult replay_ti_trace(const TiTrace& trace, MpiMachine& machine, const ReplayOptions& options);

}  // namespace hpcsim

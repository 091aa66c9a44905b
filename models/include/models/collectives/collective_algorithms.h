#pragma once
// The schedules of every collective algorithm. Sizes follow nccl-tests: `bytes` is each rank's buffer
// for all-reduce, broadcast, reduce and send/recv, the whole result for reduce-scatter and all-gather,
// and each rank's send buffer for all-to-all.
#include <span>
#include <string>

#include "models/collectives/collective_group.h"
#include "models/collectives/collective_kind.h"
#include "models/collectives/collective_schedule.h"

namespace hpcsim {

struct ScheduleOptions {
  int root = 0;  // broadcast and reduce
  // Pipelined algorithms (tree, pipeline) cut data into chunks of at most this size: NCCL's default
  // 4 MiB buffer per channel (NCCL_BUFFSIZE) is split into 8 slots (NCCL_STEPS), 512 KiB each.
  double chunk_bytes = 512.0 * 1024;
  int max_chunks = 1024;  // bounds the steps of a pipeline over a huge buffer
};

// The algorithms that implement `op`, in the order the selector prefers them when estimates tie.
std::span<const CollectiveAlgorithm> algorithms_for(CollectiveOp op);
// Empty when `algo` can run `op` over `group`; otherwise the reason, for an error message.
std::string unsupported_reason(CollectiveOp op, CollectiveAlgorithm algo, const CollectiveGroup& group);
// Whether the selector may pick `algo` for `op` over `group` by itself: it can run there, and it is one NCCL
// would run (a caller may still force any algorithm that can run).
bool selectable(CollectiveOp op, CollectiveAlgorithm algo, const CollectiveGroup& group);
// std::invalid_argument when unsupported, the root is not a rank, or bytes is negative.
CollectiveSchedule build_schedule(CollectiveOp op, CollectiveAlgorithm algo, const CollectiveGroup& group,
                                  double bytes, const ScheduleOptions& options = {});

}  // namespace hpcsim

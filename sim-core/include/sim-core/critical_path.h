#pragma once
// After a run: the critical path (the chain of ops that bounded the makespan) and busy time per
// stream, both split by op tag. Time of a tag on the critical path is the time that tag was
// exposed (nothing overlapped it), which is what a compute/communication breakdown needs.
#include <span>
#include <vector>

#include "sim-core/execution_graph.h"
#include "sim-core/executor.h"
#include "sim-core/time.h"

namespace hpcsim {

// Time per tag; a tag never seen reads as zero.
class TagTimes {
 public:
  Time operator[](OpTag tag) const { return tag < by_tag_.size() ? by_tag_[tag] : Time::zero(); }
  void add(OpTag tag, Time t);
  Time total() const;
  // One past the highest tag stored.
  std::size_t tag_count() const { return by_tag_.size(); }
  bool operator==(const TagTimes&) const = default;

 private:
  std::vector<Time> by_tag_;
};

struct CriticalPath {
  std::vector<OpId> ops;   // in execution order; the last one is the last op to finish
  Time start;              // earliest op start of the run
  Time end;                // end of the last op
  TagTimes time_by_tag;    // durations of the ops on the path, by tag
  Time waiting;            // stretches of the path where none of its ops ran
  Time length() const { return end - start; }  // == time_by_tag.total() + waiting
};

struct StreamBusy {
  StreamId stream = kNoStream;
  Time busy;              // union of the stream's op intervals
  TagTimes busy_by_tag;   // union of the intervals of the stream's ops of each tag
};

// Walks back from the last-finishing op, each step to the predecessor (dependency or stream order)
// that ended last, i.e. the one that bounded the op's start. Equal end times: the op later in the
// graph's topological order wins, so zero-duration ops stay on the path. Empty graph: empty path.
CriticalPath critical_path(const ExecutionGraph& graph, std::span<const Time> starts,
                           std::span<const Time> ends);
// The same for a finished executor; an unfinished one throws ExecutionError.
CriticalPath critical_path(const Executor& executor);

// One entry per stream that has ops, ascending by stream id; ops on kNoStream are left out.
std::vector<StreamBusy> stream_busy(const ExecutionGraph& graph, std::span<const Time> starts,
                                    std::span<const Time> ends);
std::vector<StreamBusy> stream_busy(const Executor& executor);

// Union over all ops of each tag, whatever their stream: how long each tag kept anything busy.
TagTimes busy_by_tag(const ExecutionGraph& graph, std::span<const Time> starts, std::span<const Time> ends);

}  // namespace hpcsim

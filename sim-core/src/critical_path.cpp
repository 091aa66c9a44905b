#include "sim-core/critical_path.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace hpcsim {

void TagTimes::add(OpTag tag, Time t) {
  if (by_tag_.size() <= tag) by_tag_.resize(std::size_t{tag} + 1, Time::zero());
  by_tag_[tag] += t;
}

Time TagTimes::total() const { return std::accumulate(by_tag_.begin(), by_tag_.end(), Time::zero()); }

namespace {

void check_timings(const ExecutionGraph& graph, std::span<const Time> starts, std::span<const Time> ends) {
  if (starts.size() != graph.size() || ends.size() != graph.size()) {
    throw std::invalid_argument("timings cover " + std::to_string(starts.size()) + " starts and " +
                               std::to_string(ends.size()) + " ends for a graph of " +
                               std::to_string(graph.size()) + " ops");
  }
}

const Executor& require_finished(const Executor& executor) {
  if (!executor.finished()) throw ExecutionError("run results requested before the graph finished");
  return executor;
}

// Length of the union of [starts[op], ends[op]) over ops, which must be sorted by start.
class UnionLength {
 public:
  void add(Time start, Time end) {
    if (!open_ || start > end_) {
      if (open_) total_ += end_ - start_;
      start_ = start;
      end_ = end;
      open_ = true;
    } else {
      end_ = std::max(end_, end);
    }
  }
  Time finish() {
    if (open_) total_ += end_ - start_;
    open_ = false;
    return std::exchange(total_, Time::zero());
  }

 private:
  Time start_, end_, total_;
  bool open_ = false;
};

}  // namespace

CriticalPath critical_path(const ExecutionGraph& graph, std::span<const Time> starts,
                           std::span<const Time> ends) {
  check_timings(graph, starts, ends);
  CriticalPath path;
  const std::span<const OpId> order = graph.topological_order();
  if (order.empty()) return path;

  // Rank in topological order breaks ties between equal end times: later wins.
  std::vector<std::uint32_t> rank(graph.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  const auto ends_later = [&](OpId a, OpId b) {
    return ends[a] != ends[b] ? ends[a] > ends[b] : rank[a] > rank[b];
  };

  path.start = *std::min_element(starts.begin(), starts.end());
  OpId op = order.front();
  for (OpId candidate : order) {
    if (ends_later(candidate, op)) op = candidate;
  }
  path.end = ends[op];
  while (true) {
    path.ops.push_back(op);
    path.time_by_tag.add(graph.tag(op), ends[op] - starts[op]);
    OpId bound = kNoOp;
    for (OpId pred : graph.predecessors(op)) {
      if (bound == kNoOp || ends_later(pred, bound)) bound = pred;
    }
    const Time ready = bound == kNoOp ? path.start : ends[bound];
    if (starts[op] > ready) path.waiting += starts[op] - ready;
    if (bound == kNoOp) break;
    op = bound;
  }
  std::reverse(path.ops.begin(), path.ops.end());
  return path;
}

CriticalPath critical_path(const Executor& executor) {
  require_finished(executor);
  return critical_path(executor.graph(), executor.op_starts(), executor.op_ends());
}

std::vector<StreamBusy> stream_busy(const ExecutionGraph& graph, std::span<const Time> starts,
                                    std::span<const Time> ends) {
  check_timings(graph, starts, ends);
  std::vector<OpId> ops;
  for (OpId op = 0; op < graph.size(); ++op) {
    if (graph.stream(op) != kNoStream) ops.push_back(op);
  }
  std::vector<StreamBusy> result;
  UnionLength span;

  // Pass 1, by (stream, start): one entry per stream with its total busy time.
  std::sort(ops.begin(), ops.end(), [&](OpId a, OpId b) {
    return graph.stream(a) != graph.stream(b) ? graph.stream(a) < graph.stream(b) : starts[a] < starts[b];
  });
  for (std::size_t i = 0; i < ops.size(); ++i) {
    span.add(starts[ops[i]], ends[ops[i]]);
    if (i + 1 == ops.size() || graph.stream(ops[i + 1]) != graph.stream(ops[i])) {
      result.push_back(StreamBusy{.stream = graph.stream(ops[i]), .busy = span.finish(), .busy_by_tag = {}});
    }
  }

  // Pass 2, by (stream, tag, start): the per-tag unions, matched to the entries of pass 1.
  std::sort(ops.begin(), ops.end(), [&](OpId a, OpId b) {
    if (graph.stream(a) != graph.stream(b)) return graph.stream(a) < graph.stream(b);
    return graph.tag(a) != graph.tag(b) ? graph.tag(a) < graph.tag(b) : starts[a] < starts[b];
  });
  std::size_t entry = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    span.add(starts[ops[i]], ends[ops[i]]);
    const bool last_of_tag = i + 1 == ops.size() || graph.stream(ops[i + 1]) != graph.stream(ops[i]) ||
                             graph.tag(ops[i + 1]) != graph.tag(ops[i]);
    if (!last_of_tag) continue;
    while (result[entry].stream != graph.stream(ops[i])) ++entry;
    result[entry].busy_by_tag.add(graph.tag(ops[i]), span.finish());
  }
  return result;
}

std::vector<StreamBusy> stream_busy(const Executor& executor) {
  require_finished(executor);
  return stream_busy(executor.graph(), executor.op_starts(), executor.op_ends());
}

TagTimes busy_by_tag(const ExecutionGraph& graph, std::span<const Time> starts, std::span<const Time> ends) {
  check_timings(graph, starts, ends);
  std::vector<OpId> ops(graph.size());
  std::iota(ops.begin(), ops.end(), OpId{0});
  std::sort(ops.begin(), ops.end(), [&](OpId a, OpId b) {
    return graph.tag(a) != graph.tag(b) ? graph.tag(a) < graph.tag(b) : starts[a] < starts[b];
  });
  TagTimes result;
  UnionLength span;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    span.add(starts[ops[i]], ends[ops[i]]);
    if (i + 1 == ops.size() || graph.tag(ops[i + 1]) != graph.tag(ops[i])) {
      result.add(graph.tag(ops[i]), span.finish());
    }
  }
  return result;
}

}  // namespace hpcsim

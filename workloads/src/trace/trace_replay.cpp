#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "models/collectives/collective_runner.h"
#include "models/platform/platform.h"
#include "sim-core/execution_graph.h"
#include "sim-core/executor.h"
#include "sim-core/simulator.h"
#include "workloads/trace/trace_graph.h"

namespace hpcsim {

namespace {

constexpr OpType kFixed = 0;
constexpr OpType kCollective = 1;

double class_union(const TraceGraph& g, const TraceReplayResult& r, auto&& keep) {
  std::vector<std::pair<double, double>> v;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (keep(g.ops[i].cls)) v.emplace_back(r.start_s[i], r.end_s[i]);
  }
  return interval_union_s(std::move(v));
}

// Runs a trace's collectives on the fabric. When they all run on one stream, one at a time, each runs alone
// there (compute ops are fixed durations, off the fabric), so a repeat takes what its first run took and is
// replayed, not simulated again: an MoE trace's all-to-alls over 1,024 GPUs took 3.5 s each.
class CollectiveReplay {
 public:
  CollectiveReplay(const TraceGraph& g, const TraceFabric& fabric)
      : g_(g), fabric_(fabric), began_(g.ops.size(), Time::zero()), one_at_a_time_(one_stream(g)) {}

  // Starts op `id` now; `done` when it ends.
  void start(OpId id, Completion done) {
    Simulator& sim = fabric_.platform->sim();
    began_[id] = sim.now();
    if (const auto it = took_.find(key(id)); one_at_a_time_ && it != took_.end()) {
      sim.schedule_at(sim.now() + it->second, [done] { done(); });
      return;
    }
    CollectiveRequest request;
    request.op = key(id).first;
    request.bytes = key(id).second;
    Platform& p = *fabric_.platform;
    start_collective(p.sim(), p.fair_share(), p.fabric(), fabric_.group, request, [this, id, done](const CollectiveStats&) {
      if (one_at_a_time_) took_.emplace(key(id), fabric_.platform->sim().now() - began_[id]);
      done();
    });
  }

 private:
  static bool one_stream(const TraceGraph& g) {
    std::optional<std::uint32_t> stream;
    for (const TraceOp& op : g.ops) {
      if (!op.collective || !(op.bytes > 0)) continue;
      if (op.stream == kTraceNoStream || (stream && *stream != op.stream)) return false;
      stream = op.stream;
    }
    return true;
  }
  std::pair<CollectiveOp, double> key(OpId id) const { return {*g_.ops[id].collective, g_.ops[id].bytes}; }

  const TraceGraph& g_;
  const TraceFabric& fabric_;
  std::vector<Time> began_;  // per op
  std::map<std::pair<CollectiveOp, double>, Time> took_;
  bool one_at_a_time_;
};

}  // namespace

double interval_union_s(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, lo = 0, hi = 0;
  bool open = false;
  for (const auto& [a, b] : intervals) {
    if (b <= a) continue;
    if (open && a <= hi) {
      hi = std::max(hi, b);
      continue;
    }
    if (open) total += hi - lo;
    lo = a, hi = b, open = true;
  }
  if (open) total += hi - lo;
  return total;
}

TraceReplayResult replay_trace(const TraceGraph& g, const TraceFabric* fabric) {
  ExecutionGraph graph;
  for (const TraceOp& op : g.ops) {
    const bool on_fabric = fabric && op.collective && op.bytes > 0;
    graph.add_op(OpSpec{"", on_fabric ? kCollective : kFixed, op.stream == kTraceNoStream ? kNoStream : op.stream, 0, 0, {}});
  }
  for (const auto& [before, after] : g.deps) {
    if (before >= g.ops.size() || after >= g.ops.size()) throw GraphError("a trace dependency names an unknown op");
    graph.add_dependency(before, after);
  }
  graph.finalize();

  std::unique_ptr<Simulator> own;
  Simulator& sim = fabric ? fabric->platform->sim() : *(own = std::make_unique<Simulator>());
  const Time origin = sim.now();
  TraceReplayResult r;
  r.start_s.assign(g.ops.size(), 0);
  r.end_s.assign(g.ops.size(), 0);
  Executor exec(sim, graph);
  exec.set_handler(kFixed, [&](OpId id, Completion done) {
    const TraceOp& op = g.ops[id];
    const Time start = std::max(sim.now(), origin + Time::seconds(op.release_s));
    r.start_s[id] = (start - origin).to_seconds();
    sim.schedule_at(start + Time::seconds(op.duration_s), [done] { done(); });
  });
  std::optional<CollectiveReplay> collectives;
  if (fabric) {
    collectives.emplace(g, *fabric);
    exec.set_handler(kCollective, [&](OpId id, Completion done) {
      const TraceOp& op = g.ops[id];
      const Time start = std::max(sim.now(), origin + Time::seconds(op.release_s));
      r.start_s[id] = (start - origin).to_seconds();
      sim.schedule_at(start, [c = &*collectives, id, done] { c->start(id, done); });
    });
  }
  const std::uint64_t events_before = sim.events_processed();
  exec.run();
  r.events = static_cast<std::int64_t>(sim.events_processed() - events_before);
  double first = 0, last = 0;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    r.end_s[i] = (exec.op_end(static_cast<OpId>(i)) - origin).to_seconds();
    first = i == 0 ? r.start_s[i] : std::min(first, r.start_s[i]);
    last = std::max(last, r.end_s[i]);
  }
  r.makespan_s = g.ops.empty() ? 0 : last - first;
  const auto device = [](TraceOpClass c) { return c != TraceOpClass::host; };
  r.busy_s = class_union(g, r, device);
  r.compute_busy_s = class_union(g, r, [](TraceOpClass c) { return c == TraceOpClass::compute; });
  r.memory_busy_s = class_union(g, r, [](TraceOpClass c) { return c == TraceOpClass::memory; });
  r.collective_busy_s = class_union(g, r, [](TraceOpClass c) { return c == TraceOpClass::collective; });
  const double non_collective = class_union(g, r, [](TraceOpClass c) { return c == TraceOpClass::compute || c == TraceOpClass::memory; });
  r.communication_exposed_s = std::max(0.0, r.busy_s - non_collective);
  return r;
}

}  // namespace hpcsim

#include "workloads/trace/kineto_graph.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

namespace hpcsim {

namespace {

// Each stream's activities as (correlation, index), by correlation (host issue order).
std::map<int, std::vector<std::pair<std::int64_t, std::uint32_t>>> issue_order(const KinetoTrace& t) {
  std::map<int, std::vector<std::pair<std::int64_t, std::uint32_t>>> s;
  for (std::uint32_t i = 0; i < t.activities.size(); ++i) s[t.activities[i].stream].emplace_back(t.activities[i].correlation, i);
  for (auto& [stream, v] : s) std::sort(v.begin(), v.end());
  return s;
}

// The dependencies the waits give: the last activity issued to on_stream before the wait ends before the
// first activity issued to stream after it starts.
std::vector<std::pair<std::uint32_t, std::uint32_t>> wait_edges(const KinetoTrace& t) {
  const auto order = issue_order(t);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (const StreamWait& w : t.waits) {
    const auto on = order.find(w.on_stream);
    const auto to = order.find(w.stream);
    if (on == order.end() || to == order.end() || w.on_stream == w.stream) continue;
    const auto key = std::make_pair(w.correlation, std::uint32_t{0});
    auto before = std::lower_bound(on->second.begin(), on->second.end(), key);
    const auto after = std::lower_bound(to->second.begin(), to->second.end(), key);
    if (before == on->second.begin() || after == to->second.end()) continue;
    --before;
    edges.emplace_back(before->second, after->second);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

}  // namespace

TraceOpClass kineto_op_class(const GpuActivity& a) {
  if (a.kind != GpuActivityKind::kernel) return TraceOpClass::memory;
  return a.nccl ? TraceOpClass::collective : TraceOpClass::compute;
}

KinetoRecorded kineto_recorded(const KinetoTrace& t) {
  KinetoRecorded r;
  std::vector<std::pair<double, double>> all, compute, memory, collective;
  double first = 0, last = 0;
  std::map<int, int> streams;
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    const GpuActivity& a = t.activities[i];
    const std::pair<double, double> iv{a.start_s, a.start_s + a.duration_s};
    all.push_back(iv);
    switch (kineto_op_class(a)) {
      case TraceOpClass::compute: compute.push_back(iv); break;
      case TraceOpClass::memory: memory.push_back(iv); break;
      case TraceOpClass::collective: collective.push_back(iv); break;
      case TraceOpClass::host: break;
    }
    first = i == 0 ? iv.first : std::min(first, iv.first);
    last = std::max(last, iv.second);
    r.kernels += a.kind == GpuActivityKind::kernel;
    r.memcpys += a.kind == GpuActivityKind::memcpy;
    r.memsets += a.kind == GpuActivityKind::memset;
    r.nccl_kernels += a.nccl;
    streams[a.stream] = 1;
  }
  r.span_s = last - first;
  r.busy_s = interval_union_s(std::move(all));
  r.compute_busy_s = interval_union_s(std::move(compute));
  r.memory_busy_s = interval_union_s(std::move(memory));
  r.collective_busy_s = interval_union_s(std::move(collective));
  r.streams = static_cast<std::int64_t>(streams.size());
  r.cross_stream_waits = static_cast<std::int64_t>(wait_edges(t).size());
  return r;
}

double kineto_launch_latency_s(const KinetoTrace& t) {
  std::unordered_map<int, double> stream_end;  // by start order, each stream's last end so far
  std::vector<double> delays;
  for (const GpuActivity& a : t.activities) {
    double& end = stream_end.try_emplace(a.stream, -1e300).first->second;
    if (a.launch_s && end <= *a.launch_s && a.start_s >= *a.launch_s) delays.push_back(a.start_s - *a.launch_s);
    end = std::max(end, a.start_s + a.duration_s);
  }
  if (delays.empty()) return 0;
  std::nth_element(delays.begin(), delays.begin() + static_cast<std::ptrdiff_t>(delays.size() / 2), delays.end());
  return delays[delays.size() / 2];
}

std::vector<double> recorded_durations(const KinetoTrace& t) {
  std::vector<double> d;
  d.reserve(t.activities.size());
  for (const GpuActivity& a : t.activities) d.push_back(a.duration_s);
  return d;
}

std::optional<CollectiveOp> kineto_collective(const std::string& name) {
  std::string n;
  for (const char c : name) {
    if (c != '_' && c != ' ') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (n.find("allreduce") != std::string::npos) return CollectiveOp::allreduce;
  if (n.find("reducescatter") != std::string::npos) return CollectiveOp::reducescatter;
  if (n.find("allgather") != std::string::npos) return CollectiveOp::allgather;
  if (n.find("alltoall") != std::string::npos) return CollectiveOp::alltoall;
  if (n.find("broadcast") != std::string::npos) return CollectiveOp::broadcast;
  if (n == "reduce") return CollectiveOp::reduce;
  return std::nullopt;
}

TraceGraph kineto_graph(const KinetoTrace& t, const std::vector<double>& durations_s, double launch_latency_s, bool collectives) {
  TraceGraph g;
  g.ops.reserve(t.activities.size());
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    const GpuActivity& a = t.activities[i];
    TraceOp op;
    op.cls = kineto_op_class(a);
    op.stream = static_cast<std::uint32_t>(a.stream);
    op.release_s = a.launch_s ? std::min(a.start_s, *a.launch_s + launch_latency_s) : a.start_s;
    op.duration_s = durations_s.at(i);
    if (collectives && a.nccl && a.collective_bytes > 0) {
      op.collective = kineto_collective(a.collective_name);
      if (op.collective) op.bytes = a.collective_bytes;
    }
    g.ops.push_back(op);
  }
  g.deps = wait_edges(t);
  return g;
}

}  // namespace hpcsim

#include "sim-core/execution_graph.h"

#include <algorithm>
#include <string>
#include <utility>

namespace hpcsim {

namespace {

struct Edge {
  OpId from;
  OpId to;
};

// Sorts edges by (key, other), drops duplicates and writes them as compressed rows indexed by key.
template <class Key, class Other>
void build_rows(std::vector<Edge> edges, std::size_t n, Key key, Other other,
                std::vector<std::uint32_t>& offsets, std::vector<OpId>& ids) {
  std::sort(edges.begin(), edges.end(), [&](const Edge& a, const Edge& b) {
    return key(a) != key(b) ? key(a) < key(b) : other(a) < other(b);
  });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const Edge& a, const Edge& b) { return a.from == b.from && a.to == b.to; }),
              edges.end());
  offsets.assign(n + 1, 0);
  for (const Edge& e : edges) ++offsets[key(e) + 1];
  for (std::size_t i = 0; i < n; ++i) offsets[i + 1] += offsets[i];
  ids.clear();
  ids.reserve(edges.size());
  for (const Edge& e : edges) ids.push_back(other(e));
}

}  // namespace

OpId ExecutionGraph::add_op(OpSpec spec) {
  const auto id = static_cast<OpId>(size());
  if (id == kNoOp) throw GraphError("execution graph is full");
  for (OpId dep : spec.deps) {
    if (!contains(dep)) {
      throw GraphError("op '" + spec.name + "' depends on unknown op id " + std::to_string(dep));
    }
  }
  OpId prev = kNoOp;
  if (spec.stream != kNoStream) {
    auto [it, inserted] = stream_tail_.try_emplace(spec.stream, id);
    if (!inserted) prev = std::exchange(it->second, id);
  }
  names_.push_back(std::move(spec.name));
  types_.push_back(spec.type);
  streams_.push_back(spec.stream);
  payloads_.push_back(spec.payload);
  tags_.push_back(spec.tag);
  stream_prev_.push_back(prev);
  for (OpId dep : spec.deps) {
    edge_from_.push_back(dep);
    edge_to_.push_back(id);
  }
  finalized_ = false;
  return id;
}

OpId ExecutionGraph::add_op(std::string name, OpType type, StreamId stream,
                            std::initializer_list<OpId> deps) {
  return add_op(OpSpec{.name = std::move(name), .type = type, .stream = stream, .deps = deps});
}

void ExecutionGraph::add_dependency(OpId before, OpId after) {
  require_op(before, "dependency source");
  require_op(after, "dependency target");
  edge_from_.push_back(before);
  edge_to_.push_back(after);
  finalized_ = false;
}

void ExecutionGraph::require_op(OpId op, const char* what) const {
  if (!contains(op)) {
    throw GraphError(std::string(what) + " is an unknown op id " + std::to_string(op) + " (graph has " +
                     std::to_string(size()) + " ops)");
  }
}

void ExecutionGraph::require_finalized() const {
  if (!finalized_) throw GraphError("execution graph used before finalize()");
}

void ExecutionGraph::finalize() {
  build_adjacency();
  check_acyclic();
  finalized_ = true;
}

void ExecutionGraph::build_adjacency() {
  std::vector<Edge> edges;
  edges.reserve(edge_from_.size() + size());
  for (std::size_t i = 0; i < edge_from_.size(); ++i) edges.push_back({edge_from_[i], edge_to_[i]});
  for (OpId op = 0; op < size(); ++op) {
    if (stream_prev_[op] != kNoOp) edges.push_back({stream_prev_[op], op});
  }
  const auto from = [](const Edge& e) { return e.from; };
  const auto to = [](const Edge& e) { return e.to; };
  build_rows(edges, size(), to, from, pred_offsets_, pred_ids_);
  build_rows(std::move(edges), size(), from, to, succ_offsets_, succ_ids_);
}

void ExecutionGraph::check_acyclic() {
  // Kahn's algorithm; whatever it cannot order lies on or behind a cycle.
  const std::size_t n = size();
  std::vector<std::uint32_t> waiting(n);
  topo_order_.clear();
  topo_order_.reserve(n);
  for (OpId op = 0; op < n; ++op) {
    waiting[op] = pred_offsets_[op + 1] - pred_offsets_[op];
    if (waiting[op] == 0) topo_order_.push_back(op);
  }
  for (std::size_t head = 0; head < topo_order_.size(); ++head) {
    const OpId op = topo_order_[head];
    for (std::uint32_t i = succ_offsets_[op]; i < succ_offsets_[op + 1]; ++i) {
      if (--waiting[succ_ids_[i]] == 0) topo_order_.push_back(succ_ids_[i]);
    }
  }
  if (topo_order_.size() == n) return;

  // Every unordered op has an unordered predecessor, so walking back from one must revisit an op.
  // Walk from the lowest id, always taking the lowest-id unordered predecessor: deterministic.
  std::vector<std::uint32_t> seen_at(n, UINT32_MAX);
  std::vector<OpId> walk;
  OpId cur = 0;
  while (waiting[cur] == 0) ++cur;
  while (seen_at[cur] == UINT32_MAX) {
    seen_at[cur] = static_cast<std::uint32_t>(walk.size());
    walk.push_back(cur);
    for (std::uint32_t i = pred_offsets_[cur]; i < pred_offsets_[cur + 1]; ++i) {
      if (waiting[pred_ids_[i]] != 0) {
        cur = pred_ids_[i];
        break;
      }
    }
  }
  // walk[k..] steps backwards along edges: reverse it to read in execution order.
  std::vector<OpId> cycle(walk.begin() + seen_at[cur], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  const auto label = [&](OpId op) {
    std::string text = names_[op];
    if (text.empty()) text.append("#").append(std::to_string(op));  // unnamed ops show their id
    return text;
  };
  std::string msg = "cycle in execution graph: ";
  for (OpId op : cycle) msg += label(op) + " -> ";
  msg += label(cycle.front());
  topo_order_.clear();
  throw GraphError(msg);
}

std::span<const OpId> ExecutionGraph::predecessors(OpId op) const {
  require_finalized();
  require_op(op, "predecessors of");
  return {pred_ids_.data() + pred_offsets_[op], pred_ids_.data() + pred_offsets_[op + 1]};
}

std::span<const OpId> ExecutionGraph::successors(OpId op) const {
  require_finalized();
  require_op(op, "successors of");
  return {succ_ids_.data() + succ_offsets_[op], succ_ids_.data() + succ_offsets_[op + 1]};
}

std::span<const OpId> ExecutionGraph::topological_order() const {
  require_finalized();
  return topo_order_;
}

}  // namespace hpcsim

#include "workloads/trace/chakra_trace.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "configs/config_error.h"
#include "trace_text.h"

#ifdef HPCSIM_WITH_CHAKRA
#include <google/protobuf/io/coded_stream.h>

#include "et_def.pb.h"
#endif

namespace hpcsim {

const char* to_string(ChakraNodeType t) {
  static constexpr const char* names[] = {"invalid", "metadata", "mem_load", "mem_store", "comp", "comm_send", "comm_recv", "comm_coll"};
  return names[static_cast<int>(t)];
}

#ifdef HPCSIM_WITH_CHAKRA

bool chakra_supported() { return true; }

namespace {

void read_attributes(const ChakraProtoMsg::Node& n, ChakraNode& out) {
  for (const ChakraProtoMsg::AttributeProto& a : n.attr()) {
    auto integer = [&]() -> double {
      switch (a.value_case()) {
        case ChakraProtoMsg::AttributeProto::kInt32Val: return a.int32_val();
        case ChakraProtoMsg::AttributeProto::kInt64Val: return static_cast<double>(a.int64_val());
        case ChakraProtoMsg::AttributeProto::kUint32Val: return a.uint32_val();
        case ChakraProtoMsg::AttributeProto::kUint64Val: return static_cast<double>(a.uint64_val());
        case ChakraProtoMsg::AttributeProto::kDoubleVal: return a.double_val();
        case ChakraProtoMsg::AttributeProto::kFloatVal: return a.float_val();
        case ChakraProtoMsg::AttributeProto::kBoolVal: return a.bool_val() ? 1 : 0;
        default: return 0;
      }
    };
    if (a.name() == "is_cpu_op") out.is_cpu_op = integer() != 0;
    else if (a.name() == "comm_type") out.comm_type = static_cast<int>(integer());
    else if (a.name() == "comm_size") out.comm_size = integer();
    else if (a.name() == "num_ops") out.num_ops = integer();
    else if (a.name() == "tensor_size") out.tensor_size = integer();
  }
}

}  // namespace

ChakraTrace read_chakra_trace(const std::string& path) {
  const std::string bytes = trace_detail::read_trace_text(path);
  ChakraTrace t;
  t.file = path;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(static_cast<int>(std::min<std::size_t>(bytes.size() + 1, 2'000'000'000)));
  bool metadata = false;
  while (in.CurrentPosition() < static_cast<int>(bytes.size())) {
    const int at = in.CurrentPosition();
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length)) throw ConfigError(SourceLoc{path}, "truncated Chakra trace: no message length at byte " + std::to_string(at));
    if (static_cast<std::size_t>(in.CurrentPosition()) + length > bytes.size()) {
      throw ConfigError(SourceLoc{path}, "truncated Chakra trace: the message at byte " + std::to_string(at) + " needs " +
                                             std::to_string(length) + " bytes, " +
                                             std::to_string(bytes.size() - static_cast<std::size_t>(in.CurrentPosition())) + " remain");
    }
    const auto limit = in.PushLimit(static_cast<int>(length));
    if (!metadata) {
      ChakraProtoMsg::GlobalMetadata m;
      if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
        throw ConfigError(SourceLoc{path}, "not a Chakra trace: no GlobalMetadata message at byte " + std::to_string(at));
      }
      t.version = m.version();
      metadata = true;
    } else {
      ChakraProtoMsg::Node n;
      if (!n.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
        throw ConfigError(SourceLoc{path}, "malformed Chakra node message at byte " + std::to_string(at));
      }
      ChakraNode node;
      node.id = n.id();
      node.name = n.name();
      node.type = n.type() >= 0 && n.type() < kChakraNodeTypeCount ? static_cast<ChakraNodeType>(n.type()) : ChakraNodeType::invalid;
      node.ctrl_deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
      node.data_deps.assign(n.data_deps().begin(), n.data_deps().end());
      node.duration_s = static_cast<double>(n.duration_micros()) * 1e-6;
      read_attributes(n, node);
      t.nodes.push_back(std::move(node));
    }
    in.PopLimit(limit);
  }
  if (!metadata) throw ConfigError(SourceLoc{path}, "empty Chakra trace");
  return t;
}

#else

bool chakra_supported() { return false; }

ChakraTrace read_chakra_trace(const std::string& path) {
  throw ConfigError(SourceLoc{path}, "this hpcsim was built without protobuf (libprotobuf-dev, protobuf-compiler): "
                                     "Chakra traces cannot be read");
}

#endif

ChakraGraphCheck check_chakra_graph(const ChakraTrace& t) {
  ChakraGraphCheck c;
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (!index.emplace(t.nodes[i].id, i).second) ++c.duplicate_ids;
    ++c.nodes_by_type[static_cast<std::size_t>(t.nodes[i].type)];
  }
  c.nodes = static_cast<std::int64_t>(t.nodes.size());
  std::vector<std::vector<std::size_t>> succ(t.nodes.size());
  std::vector<int> indegree(t.nodes.size(), 0);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const ChakraNode& n = t.nodes[i];
    for (const std::uint64_t d : n.ctrl_deps) {
      ++c.ctrl_edges;
      c.dangling_ctrl += !index.count(d);
    }
    for (const std::uint64_t d : n.data_deps) {
      ++c.data_edges;
      const auto it = index.find(d);
      if (it == index.end()) {
        if (c.dangling_data++ == 0) c.first_dangling_data = "node " + std::to_string(n.id) + " (" + n.name + ") -> " + std::to_string(d);
        continue;
      }
      succ[it->second].push_back(i);
      ++indegree[i];
    }
  }
  std::queue<std::size_t> ready;
  for (std::size_t i = 0; i < indegree.size(); ++i) {
    if (indegree[i] == 0) ready.push(i);
  }
  std::size_t seen = 0;
  while (!ready.empty()) {
    const std::size_t i = ready.front();
    ready.pop();
    ++seen;
    for (const std::size_t j : succ[i]) {
      if (--indegree[j] == 0) ready.push(j);
    }
  }
  c.acyclic = seen == t.nodes.size();
  return c;
}

namespace {

std::optional<CollectiveOp> collective_of(int comm_type) {
  switch (comm_type) {
    case 0: return CollectiveOp::allreduce;
    case 1: return CollectiveOp::reduce;
    case 2: return CollectiveOp::allgather;
    case 5: return CollectiveOp::broadcast;
    case 6: return CollectiveOp::alltoall;
    case 7:
    case 8: return CollectiveOp::reducescatter;
    default: return std::nullopt;  // gather, scatter, barrier: their recorded duration
  }
}

}  // namespace

TraceGraph chakra_graph(const ChakraTrace& t) {
  const ChakraGraphCheck check = check_chakra_graph(t);
  if (check.dangling_data > 0) {
    throw ConfigError(SourceLoc{t.file}, std::to_string(check.dangling_data) + " data dependencies name no node of the trace, first " +
                                            check.first_dangling_data);
  }
  if (check.duplicate_ids > 0) throw ConfigError(SourceLoc{t.file}, std::to_string(check.duplicate_ids) + " node ids repeat");
  if (!check.acyclic) throw ConfigError(SourceLoc{t.file}, "the dependencies form a cycle");
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) index.emplace(t.nodes[i].id, i);
  // A topological order, smallest id first among the ready (ASTRA-sim's feeder takes the ready node with
  // the smallest id): the serial order of the compute and CPU streams.
  std::vector<int> indegree(t.nodes.size(), 0);
  std::vector<std::vector<std::uint32_t>> succ(t.nodes.size());
  TraceGraph g;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    for (const std::uint64_t d : t.nodes[i].data_deps) {
      succ[index.at(d)].push_back(i);
      ++indegree[i];
    }
  }
  using Item = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    if (indegree[i] == 0) ready.emplace(t.nodes[i].id, i);
  }
  std::vector<std::uint32_t> order;
  while (!ready.empty()) {
    const std::uint32_t i = ready.top().second;
    ready.pop();
    order.push_back(i);
    for (const std::uint32_t j : succ[i]) {
      if (--indegree[j] == 0) ready.emplace(t.nodes[j].id, j);
    }
  }
  std::vector<std::uint32_t> op_of(t.nodes.size());
  for (const std::uint32_t i : order) {
    const ChakraNode& n = t.nodes[i];
    TraceOp op;
    op.duration_s = n.duration_s;
    switch (n.type) {
      case ChakraNodeType::comp:
        op.cls = n.is_cpu_op ? TraceOpClass::host : TraceOpClass::compute;
        op.stream = n.is_cpu_op ? 1 : 0;
        break;
      case ChakraNodeType::comm_coll:
        if (n.is_cpu_op && n.comm_size <= 0) {  // the host side of a collective (c10d::broadcast_)
          op.cls = TraceOpClass::host;
          op.stream = 1;
          break;
        }
        op.cls = TraceOpClass::collective;
        if (n.comm_type) op.collective = collective_of(*n.comm_type);
        op.bytes = n.comm_size;
        break;
      case ChakraNodeType::comm_send:
      case ChakraNodeType::comm_recv: op.cls = TraceOpClass::collective; break;
      case ChakraNodeType::mem_load:
      case ChakraNodeType::mem_store: op.cls = TraceOpClass::memory; break;
      default: op.cls = TraceOpClass::host; break;  // metadata and invalid nodes: their recorded duration
    }
    op_of[i] = static_cast<std::uint32_t>(g.ops.size());
    g.ops.push_back(op);
  }
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    for (const std::uint64_t d : t.nodes[i].data_deps) g.deps.emplace_back(op_of[index.at(d)], op_of[i]);
  }
  return g;
}

}  // namespace hpcsim

#pragma once
// A Chakra execution trace (MLCommons Chakra, schema et_def.proto; the .et file one rank's replayer reads):
// a GlobalMetadata message then Node messages, each preceded by its length as a varint (protobuf's
// delimited stream). Kept: every node's id, name, type, control and data dependencies, recorded duration and
// the attributes a replay needs (comm_type, comm_size, is_cpu_op, num_ops, tensor_size). Read only when
// hpcsim was built with protobuf (chakra_supported()).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/trace/trace_graph.h"

namespace hpcsim {

// et_def.proto's NodeType, in its order.
enum class ChakraNodeType : std::uint8_t { invalid, metadata, mem_load, mem_store, comp, comm_send, comm_recv, comm_coll };
inline constexpr int kChakraNodeTypeCount = 8;
const char* to_string(ChakraNodeType type);

struct ChakraNode {
  std::uint64_t id = 0;
  std::string name;
  ChakraNodeType type = ChakraNodeType::invalid;
  std::vector<std::uint64_t> ctrl_deps, data_deps;
  double duration_s = 0;
  bool is_cpu_op = false;
  std::optional<int> comm_type;  // et_def.proto's CollectiveCommType
  double comm_size = 0;          // bytes
  double num_ops = 0, tensor_size = 0;
};

struct ChakraTrace {
  std::string file;
  std::string version;  // GlobalMetadata.version
  std::vector<ChakraNode> nodes;
};

// False when hpcsim was built without protobuf: read_chakra_trace then throws ConfigError saying so.
bool chakra_supported();

// Reads a .et file (or a gzip-compressed one). A truncated or malformed stream is a ConfigError naming the
// file and the byte offset of the message that failed.
ChakraTrace read_chakra_trace(const std::string& path);

// Data dependencies order the replay (ASTRA-sim's feeder resolves data_deps); control dependencies are the
// PyTorch op-tree parent (a kernel's launching CPU op, a top-level op's root, often not in the rank's
// file), counted and checked but not replayed.
struct ChakraGraphCheck {
  std::array<std::int64_t, kChakraNodeTypeCount> nodes_by_type{};
  std::int64_t nodes = 0, ctrl_edges = 0, data_edges = 0;
  std::int64_t dangling_data = 0;   // data dependencies naming no node of the trace
  std::int64_t dangling_ctrl = 0;   // control dependencies naming no node of the trace
  std::int64_t duplicate_ids = 0;
  std::string first_dangling_data;  // "node 12 (name) -> 7", when any
  bool acyclic = true;              // over the data dependencies
};
ChakraGraphCheck check_chakra_graph(const ChakraTrace& trace);

// The nodes as a TraceGraph, as ASTRA-sim's feeder issues them: a node is ready when its data dependencies
// have ended; GPU compute nodes run one at a time (one stream, in a topological order), CPU
// nodes one at a time on another, memory and communication nodes on none. Collectives take their
// comm_type and comm_size (run on a platform's fabric by replay_trace), every other node its recorded
// duration (a CPU-side collective node without comm_size is a CPU op). ConfigError for a dangling data
// dependency (naming the node), repeated ids or a cycle.
TraceGraph chakra_graph(const ChakraTrace& trace);

}  // namespace hpcsim

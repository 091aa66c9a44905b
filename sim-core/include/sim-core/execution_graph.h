#pragma once
// A flat DAG of typed ops. Ops on one stream run in program order (each depends implicitly on the
// previous op added to that stream); explicit dependencies add more edges. Op types and tags are
// opaque small integers that the upper layers define; the payload is the owning model's index.
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace hpcsim {

using OpId = std::uint32_t;
using OpType = std::uint16_t;
using OpTag = std::uint16_t;
using StreamId = std::uint32_t;

inline constexpr OpId kNoOp = std::numeric_limits<OpId>::max();
// An op on no stream has no program-order constraint, only its explicit dependencies.
inline constexpr StreamId kNoStream = std::numeric_limits<StreamId>::max();

// An invalid graph: a cycle, a dependency on an unknown op, or use before finalize().
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OpSpec {
  std::string name;
  OpType type = 0;
  StreamId stream = kNoStream;
  std::uint64_t payload = 0;
  OpTag tag = 0;
  std::vector<OpId> deps;  // ops that must end before this one starts
};

class ExecutionGraph {
 public:
  // Returns the new op's id (ids are dense: 0, 1, 2, ...). Unknown dep ids throw GraphError.
  OpId add_op(OpSpec spec);
  OpId add_op(std::string name, OpType type, StreamId stream, std::initializer_list<OpId> deps = {});
  // `after` may not start until `before` has ended.
  void add_dependency(OpId before, OpId after);

  // Checks for cycles (GraphError naming the ops on one) and builds the adjacency the executor and
  // critical-path code read. Adding ops or dependencies afterwards requires finalizing again.
  void finalize();
  bool finalized() const { return finalized_; }

  std::size_t size() const { return names_.size(); }
  bool contains(OpId op) const { return op < size(); }
  const std::string& name(OpId op) const { return names_.at(op); }
  OpType type(OpId op) const { return types_.at(op); }
  StreamId stream(OpId op) const { return streams_.at(op); }
  std::uint64_t payload(OpId op) const { return payloads_.at(op); }
  OpTag tag(OpId op) const { return tags_.at(op); }
  // The previous op on the same stream, or kNoOp.
  OpId stream_predecessor(OpId op) const { return stream_prev_.at(op); }

  // After finalize(): all inputs (explicit and stream order), deduplicated, ascending by id.
  std::span<const OpId> predecessors(OpId op) const;
  std::span<const OpId> successors(OpId op) const;
  // After finalize(): every op once, each after all of its predecessors.
  std::span<const OpId> topological_order() const;

 private:
  void require_op(OpId op, const char* what) const;
  void require_finalized() const;
  void build_adjacency();
  void check_acyclic();

  std::vector<std::string> names_;
  std::vector<OpType> types_;
  std::vector<StreamId> streams_;
  std::vector<std::uint64_t> payloads_;
  std::vector<OpTag> tags_;
  std::vector<OpId> stream_prev_;
  std::vector<OpId> edge_from_, edge_to_;  // explicit dependencies, in insertion order
  std::unordered_map<StreamId, OpId> stream_tail_;  // lookup only, never iterated

  // Compressed adjacency (CSR), valid while finalized_.
  std::vector<std::uint32_t> pred_offsets_, succ_offsets_;
  std::vector<OpId> pred_ids_, succ_ids_, topo_order_;
  bool finalized_ = false;
};

}  // namespace hpcsim

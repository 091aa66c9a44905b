#pragma once
// What a collective does (the operation) and how (the algorithm), with the names the CLI accepts and
// nccl-tests' bus-bandwidth factors.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hpcsim {

enum class CollectiveOp { allreduce, reducescatter, allgather, broadcast, reduce, alltoall, sendrecv };

enum class CollectiveAlgorithm {
  ring,              // NCCL's ring, one ring per NIC rail
  tree,              // double binary tree, chunks pipelined up and/or down
  halving_doubling,  // recursive halving then doubling (Rabenseifner)
  direct,            // every message at once, point to point
  hierarchical,      // inside each node over NVLink, then across nodes one ring per local GPU, then inside
  pipeline,          // a chain from the root, chunks pipelined along it
  nvls,              // NVLink SHARP: the NVSwitch reduces and multicasts (one node's GPUs, Hopper or later)
};

std::string_view op_name(CollectiveOp op);
std::string_view algorithm_name(CollectiveAlgorithm algo);
std::optional<CollectiveOp> parse_op(std::string_view name);
std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view name);
std::span<const std::string_view> op_names();
std::span<const std::string_view> algorithm_names();

// nccl-tests' busbw = algbw * factor (doc/PERFORMANCE.md): 2(n-1)/n all-reduce; (n-1)/n reduce-scatter,
// all-gather and all-to-all; 1 broadcast, reduce and send/recv.
double busbw_factor(CollectiveOp op, int ranks);

}  // namespace hpcsim

#include "models/collectives/collective_kind.h"

#include <array>

namespace hpcsim {

namespace {
// Indexed by the enums' values.
constexpr std::array<std::string_view, 7> kOps = {"allreduce", "reducescatter", "allgather", "broadcast",
                                                  "reduce",    "alltoall",      "sendrecv"};
constexpr std::array<std::string_view, 7> kAlgorithms = {"ring",   "tree",         "halving-doubling",
                                                         "direct", "hierarchical", "pipeline", "nvls"};
}  // namespace

std::string_view op_name(CollectiveOp op) { return kOps[static_cast<std::size_t>(op)]; }
std::string_view algorithm_name(CollectiveAlgorithm algo) { return kAlgorithms[static_cast<std::size_t>(algo)]; }

std::optional<CollectiveOp> parse_op(std::string_view name) {
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i] == name) return static_cast<CollectiveOp>(i);
  }
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view name) {
  for (std::size_t i = 0; i < kAlgorithms.size(); ++i) {
    if (kAlgorithms[i] == name) return static_cast<CollectiveAlgorithm>(i);
  }
  return std::nullopt;
}

std::span<const std::string_view> op_names() { return kOps; }
std::span<const std::string_view> algorithm_names() { return kAlgorithms; }

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::allreduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::reducescatter:
    case CollectiveOp::allgather:
    case CollectiveOp::alltoall:
      return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::sendrecv:
      return 1;
  }
  return 1;
}

}  // namespace hpcsim

#pragma once
// MPI collectives as algorithms over point-to-point: each algorithm writes, for one rank, the sends,
// receives and waits that rank performs (a CollStep list), so collectives run on MpiWorld's messages and
// share the fabric with everything else. Open MPI's segmented algorithms (pipeline and split binary tree
// bcast, pipeline / binary / binomial reduce, segmented ring allreduce) choose their segment size from the
// message and rank count as Open MPI's fixed rules do, whether selected or forced. A selector picks the algorithm as a library would: SimGrid
// SMPI's default selector (to replay traces as SimGrid does) or Open MPI's tuned fixed decision rules
// (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, as ported in SimGrid's smpi_openmpi_selector.cpp);
// any operation's choice can be overridden by name.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hpcsim {

enum class MpiCollective : std::uint8_t {
  barrier, bcast, reduce, allreduce, alltoall, alltoallv, gather, gatherv, allgather, allgatherv, reducescatter,
  scatter, scatterv
};

enum class CollAlgorithm : std::uint8_t {
  linear,              // everyone to/from the root (or all pairs posted at once)
  binomial,            // binomial tree (bcast, reduce, gather, scatter)
  pipeline,            // chain with segments (bcast)
  reduce_bcast,        // linear reduce to rank 0, then binomial bcast (allreduce; SimGrid's default)
  recursive_doubling,  // allreduce, allgather, barrier
  ring,                // allreduce (reduce-scatter + allgather), allgather(v), reducescatter
  rabenseifner,        // allreduce: recursive halving reduce-scatter + recursive doubling allgather
  pairwise,            // alltoall(v), reducescatter: n - 1 exchange steps
  bruck,               // alltoall, allgather
  dissemination,       // barrier
  reduce_scatterv,     // reducescatter: reduce to rank 0, then scatterv (SimGrid's default, regular counts)
  recursive_halving,   // reducescatter
  split_bintree,       // bcast: each half of the message down one subtree of a binary tree, then swapped (Open MPI)
  binary,              // reduce: segmented, up a binary tree (Open MPI)
  neighbor_exchange,   // allgather: Chen et al.'s neighbour exchange, even rank counts (Open MPI; ring when odd)
  ring_segmented,      // allreduce: the ring in phases of 1 MiB segments (Open MPI)
  basic_linear,        // gather, scatter, reduce: the root's messages one at a time, each awaited (Open MPI basic_linear)
  linear_sync,         // gather: the root asks each rank in turn, which sends a first segment, then the rest (Open MPI)
  nonoverlapping,      // allreduce: a reduce to rank 0, then a bcast, each as Open MPI's fixed rules choose it (Open MPI)
};

const char* mpi_collective_name(MpiCollective op);
std::optional<MpiCollective> mpi_collective_from_name(const std::string& name);
const char* coll_algorithm_name(CollAlgorithm a);
std::optional<CollAlgorithm> coll_algorithm_from_name(const std::string& name);
// Whether `a` implements `op`.
bool implements(CollAlgorithm a, MpiCollective op);

// wait_all waits for the rank's sends and receives posted since its last wait, except deferred ones, which
// stay outstanding until a wait_deferred (a receive posted early and awaited at the end, as Open MPI's
// linear_sync gather posts each rank's second segment).
struct CollStep {
  enum Kind : std::uint8_t { send, recv, wait_all, wait_deferred };
  Kind kind;
  int peer = 0;
  double bytes = 0;
  bool deferred = false;
};

// One call of a collective as one rank sees it. bytes: the rank's block (bcast/reduce/allreduce: the
// whole buffer; alltoall/allgather/gather/scatter: one block). counts: per-rank byte counts where the
// operation has them (the v variants' receive counts, alltoallv's send counts, reducescatter's counts);
// recv_counts: alltoallv's receive counts.
struct CollectiveCall {
  MpiCollective op = MpiCollective::barrier;
  int root = 0;
  double bytes = 0;
  double elements = 0;  // bytes / datatype size (Open MPI's rules test counts)
  std::span<const double> counts;
  std::span<const double> recv_counts;
};

// The steps of `rank` of `n` ranks; appends to `out`. std::invalid_argument when `a` does not implement
// the operation or the counts do not have n entries.
void expand_collective(const CollectiveCall& call, int rank, int n, CollAlgorithm a, std::vector<CollStep>& out);

class CollSelector {
 public:
  enum class Rules : std::uint8_t { smpi, ompi };
  explicit CollSelector(Rules rules = Rules::ompi) : rules_(rules) {}
  void override_with(MpiCollective op, CollAlgorithm a) { overrides_[op] = a; }
  CollAlgorithm select(const CollectiveCall& call, int n) const;
  Rules rules() const { return rules_; }

 private:
  Rules rules_;
  std::map<MpiCollective, CollAlgorithm> overrides_;
};

}  // namespace hpcsim

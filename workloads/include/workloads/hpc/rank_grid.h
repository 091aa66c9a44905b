#pragma once
// Where the ranks of an SPMD program sit: the process grid of a domain decomposition (1 to 3 dimensions,
// x fastest in rank order, as HPCG numbers its ranks), the nodes they fill (ranks_per_node consecutive
// ranks per node, Open MPI's --map-by core default), and the OpenMP placement of one rank's threads with
// the node's other threads streaming beside them (omp_region.h).
#include <array>

#include "models/cpu/omp_region.h"
#include "models/node/node_spec.h"

namespace hpcsim {

struct ProcessGrid {
  std::array<int, 3> dims{1, 1, 1};
  int ranks() const { return dims[0] * dims[1] * dims[2]; }
  std::array<int, 3> coords(long long rank) const;
  long long rank_at(const std::array<int, 3>& c) const;  // -1 outside the grid (no periodic wrap)
};

// The factorization of `ranks` into `ndims` (1..3) factors that minimizes the halo surface of a `domain`
// (cells per dimension; the unused dimensions 1) cut into that grid: sum over dimensions of the faces a
// rank exchanges. With an equal domain per rank (`domain` = the local box), the most cubic grid. Ties go to
// the grid with the larger factor first in x.
ProcessGrid balanced_grid(int ranks, int ndims, const std::array<double, 3>& domain);

struct RankLayout {
  int ranks = 1;
  int ranks_per_node = 1;
  int threads_per_rank = 1;
  int nodes = 1;
  OmpPlacement omp;  // one rank's threads, with every thread of its node streaming on the sockets
};

// std::invalid_argument when ranks x threads exceed a node's cores or the ranks need more nodes than
// `cluster_nodes`.
RankLayout rank_layout(const CpuSpec& cpu, int ranks, int ranks_per_node, int threads_per_rank, int cluster_nodes);

}  // namespace hpcsim

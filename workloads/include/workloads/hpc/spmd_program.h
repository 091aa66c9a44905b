#pragma once
// An SPMD program as phases every rank runs each iteration: compute (an OpenMP region of a kernel,
// omp_region.h) and communication (a halo exchange with the rank's neighbours in the process grid, a small
// all-reduce, an all-to-all, a message to a partner rank). The stencil, CG and HPCG models (stencil_app.h,
// hpcg_app.h) compile to such programs, and `app: spmd` reads one from YAML. A communication phase marked
// `overlap` runs behind the compute phase that follows it (non-blocking sends, then the interior work):
// the pair costs the longer of the two. Communication is timed through MpiComm only (mpi_comm.h), so the
// fabric-level MPI layer can back it; the program's time is that of a representative rank: one of the
// middle node's ranks with the most halo traffic (ranks differ only at the grid's edges).
#include <array>
#include <string_view>
#include <vector>

#include "configs/enum_names.h"
#include "models/platform/cluster_config.h"
#include "workloads/hpc/mpi_comm.h"
#include "workloads/hpc/rank_grid.h"

namespace hpcsim {

enum class SpmdPhaseKind { compute, halo, allreduce, alltoall, p2p };
inline constexpr EnumNames<SpmdPhaseKind, 5> kSpmdPhaseNames{{{
    {SpmdPhaseKind::compute, "compute"}, {SpmdPhaseKind::halo, "halo"}, {SpmdPhaseKind::allreduce, "allreduce"},
    {SpmdPhaseKind::alltoall, "alltoall"}, {SpmdPhaseKind::p2p, "p2p"}}}};

// A halo exchange's messages, by the kind of neighbour (the grid decides which neighbours exist).
struct HaloMessages {
  std::array<double, 3> face{};  // bytes to each of the two face neighbours across dimension d
  std::array<double, 3> edge{};  // bytes to each edge neighbour along dimension d (the other two cut)
  double corner = 0;             // bytes to each corner neighbour (3D)
};

// The messages of a box of `cells` per dimension with `ghost` layers of `bytes_per_cell`: faces, and with
// `diagonals` (9- and 27-point stencils, HPCG) the edges and corners too.
HaloMessages box_halo(const std::array<double, 3>& cells, int ghost, double bytes_per_cell, bool diagonals);

struct SpmdPhase {
  SpmdPhaseKind kind = SpmdPhaseKind::compute;
  HpcKernelWork work;      // compute: one rank's work
  HaloMessages halo;       // halo
  double bytes = 0;        // allreduce: the reduced vector; alltoall: to each other rank; p2p: the message
  long long distance = 1;  // p2p: rank r exchanges with rank r xor distance
  bool overlap = false;    // communication hidden behind the next compute phase
};

// Phase builders the application models share.
SpmdPhase compute_phase(const HpcKernelWork& work);
SpmdPhase comm_phase(SpmdPhaseKind kind, double bytes, long long distance = 1);  // allreduce, alltoall, p2p
SpmdPhase halo_phase(const HaloMessages& messages, bool overlap = false);

struct SpmdProgram {
  ProcessGrid grid;                  // the decomposition halo phases follow
  std::vector<SpmdPhase> setup;      // once, before the iterations
  std::vector<SpmdPhase> iteration;  // every iteration
  long long iterations = 1;
};

struct SpmdResult {
  RankLayout layout;
  ProcessGrid grid;
  long long iterations = 0;
  double time_s = 0;
  double iteration_s = 0;  // one iteration
  double flops = 0;        // every rank, every phase, setup included
  double flop_rate = 0;    // flops / time_s
  // One iteration on the representative rank, as costed before overlap.
  double compute_s = 0, halo_s = 0, allreduce_s = 0, alltoall_s = 0, p2p_s = 0;
  double exposed_comm_s = 0;         // iteration_s - compute_s: communication not hidden
  double halo_bytes_per_rank = 0;    // sent per iteration by the representative rank
  double offnode_bytes_per_node = 0; // sent per iteration off the representative node, all phases
};

// std::invalid_argument when the layout does not fit (rank_layout) or the grid is not the layout's ranks.
SpmdResult simulate_spmd(const ClusterConfig& cluster, const RankLayout& layout, const SpmdProgram& program,
                         const MpiComm& comm);

}  // namespace hpcsim

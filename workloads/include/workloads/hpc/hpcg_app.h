#pragma once
// HPCG (the High Performance Conjugate Gradient benchmark, reference version 3.1) compiled to an SPMD
// program (spmd_program.h): each rank owns an nx x ny x nz box of a 27-point 3D problem, the ranks form a
// near-cubic process grid; one CG iteration is an SpMV, three dot products (each an 8-byte all-reduce),
// three WAXPBYs and the multigrid preconditioner: on each of the levels but the coarsest a symmetric
// Gauss-Seidel pre-smoothing, a residual SpMV, restriction, the next level, prolongation and a post-
// smoothing; one symmetric Gauss-Seidel on the coarsest. Every SpMV and Gauss-Seidel sweep first exchanges
// the box's halo with its 26 neighbours. A symmetric Gauss-Seidel is two sweeps over the matrix (forward
// and backward) timed as a bandwidth-bound SpMV each: the optimized HPCG binaries the lists report run it
// multicoloured on every thread (the reference code runs it serially).
//
// The reported rate is HPCG's own: its reference operation counts (ReportResults.cpp) over the time, with
// nonzeros counted exactly (prod over dimensions of (3 n - 2) for a global grid of n points).
#include <array>

#include "workloads/hpc/spmd_program.h"

namespace hpcsim {

struct HpcgConfig {
  std::array<int, 3> local{104, 104, 104};  // HPCG's hpcg.dat default
  int levels = 4;                           // multigrid levels (HPCG: 4)
  long long iterations = 50;                // CG iterations of a set (HPCG: 50)
};

struct HpcgCounts {
  double rows = 0;      // fine grid, all ranks
  double nonzeros = 0;  // fine grid, all ranks
  double flops = 0;     // the reference count for one set (iterations + HPCG's one preamble SpMV/ddot/waxpby)
};

// HPCG's operation count of one set of `iterations` on `grid` (global counts).
HpcgCounts hpcg_counts(const HpcgConfig& config, const ProcessGrid& grid);

// Bytes per rank the reference code allocates for its box (matrix with global and local column indices,
// the CG and multigrid vectors, every level): the memory check and the default box use it.
double hpcg_bytes_per_rank(const std::array<int, 3>& local, int levels);

// Whether every local dimension divides by 2^(levels - 1) (HPCG's own requirement for its coarsening).
bool hpcg_local_valid(const std::array<int, 3>& local, int levels);

SpmdProgram hpcg_program(const HpcgConfig& config, int ranks);

}  // namespace hpcsim

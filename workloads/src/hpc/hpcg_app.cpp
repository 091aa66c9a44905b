#include "workloads/hpc/hpcg_app.h"

#include <cmath>

namespace hpcsim {

namespace {

// Global rows and nonzeros of level `level` (each level halves every dimension).
struct Level {
  std::array<double, 3> box{};  // one rank's points per dimension
  double rows = 0, nonzeros = 0;  // global
};

Level level_of(const HpcgConfig& c, const ProcessGrid& g, int level) {
  Level l;
  l.rows = 1;
  l.nonzeros = 1;
  const double scale = std::ldexp(1.0, -level);
  for (int d = 0; d < 3; ++d) {
    l.box[d] = c.local[d] * scale;
    const double n = l.box[d] * g.dims[d];
    l.rows *= n;
    l.nonzeros *= 3 * n - 2;  // every point couples with its neighbours -1, 0, +1 that exist
  }
  return l;
}

SpmdPhase halo(const std::array<double, 3>& box) { return halo_phase(box_halo(box, 1, 8.0, true)); }
SpmdPhase allreduce() { return comm_phase(SpmdPhaseKind::allreduce, 8); }

// Symmetric Gauss-Seidel: a forward and a backward sweep, each reading the matrix like an SpMV (4 FLOP per
// nonzero in all, HPCG's count).
HpcKernelWork symgs_work(double rows, double nonzeros) {
  HpcKernelWork w = spmv_work(rows, nonzeros);
  w.flops *= 2;
  w.bytes *= 2;
  return w;
}

}  // namespace

HpcgCounts hpcg_counts(const HpcgConfig& c, const ProcessGrid& g) {
  HpcgCounts out;
  const Level fine = level_of(c, g, 0);
  out.rows = fine.rows;
  out.nonzeros = fine.nonzeros;
  const double iters = static_cast<double>(c.iterations);
  const double sets = 1;
  // ReportResults.cpp: 3 ddots and 3 WAXPBYs of 2 FLOP per row, one SpMV of 2 per nonzero per iteration,
  // plus one of each per set (CG's preamble); per level but the coarsest, pre- and post-smoothing (4 per
  // nonzero each) and the residual SpMV (2); one symmetric Gauss-Seidel at the coarsest level.
  out.flops = (3 * iters + sets) * 2 * fine.rows * 2 + (iters + sets) * 2 * fine.nonzeros;
  for (int level = 0; level + 1 < c.levels; ++level) {
    out.flops += iters * (4 + 2 + 4) * level_of(c, g, level).nonzeros;
  }
  out.flops += iters * 4 * level_of(c, g, c.levels - 1).nonzeros;
  return out;
}

double hpcg_bytes_per_rank(const std::array<int, 3>& local, int levels) {
  // Per row of the reference SparseMatrix: 27 values (8 bytes), local (4) and global (8) column indices,
  // the row's pointers and local-to-global map (about 40 bytes); the CG vectors x, b, r, z, p, Ap and the
  // multigrid's three per level (8 bytes each, about 80 bytes). An estimate from the reference code's
  // allocations (GenerateProblem.cpp, CG.cpp), not a measured footprint.
  double rows = 0;
  for (int level = 0; level < levels; ++level) {
    rows += std::ldexp(static_cast<double>(local[0]) * local[1] * local[2], -3 * level);
  }
  return rows * (27.0 * 20.0 + 40.0 + 80.0);
}

bool hpcg_local_valid(const std::array<int, 3>& local, int levels) {
  const int f = 1 << (levels - 1);
  for (const int n : local) {
    if (n < 2 * f || n % f != 0) return false;
  }
  return true;
}

SpmdProgram hpcg_program(const HpcgConfig& c, int ranks) {
  SpmdProgram p;
  p.grid = balanced_grid(ranks, 3, {static_cast<double>(c.local[0]), static_cast<double>(c.local[1]),
                                    static_cast<double>(c.local[2])});
  p.iterations = c.iterations;
  const double r = ranks;
  const Level fine = level_of(c, p.grid, 0);
  const double rows = fine.rows / r, nnz = fine.nonzeros / r;
  // The set's preamble: r = b - Ax (SpMV and a WAXPBY) and the first norm.
  p.setup = {halo(fine.box), compute_phase(spmv_work(rows, nnz)), compute_phase(axpy_work(rows)), compute_phase(dot_work(rows)), allreduce()};
  // One iteration: the preconditioner (multigrid V-cycle), then CG's own kernels.
  for (int level = 0; level < c.levels; ++level) {
    const Level l = level_of(c, p.grid, level);
    const double lr = l.rows / r, lnz = l.nonzeros / r;
    if (level + 1 == c.levels) {
      p.iteration.push_back(halo(l.box));
      p.iteration.push_back(compute_phase(symgs_work(lr, lnz)));
      break;
    }
    p.iteration.push_back(halo(l.box));
    p.iteration.push_back(compute_phase(symgs_work(lr, lnz)));  // pre-smoothing
    p.iteration.push_back(halo(l.box));
    p.iteration.push_back(compute_phase(spmv_work(lr, lnz)));   // residual
    p.iteration.push_back(halo(l.box));
    p.iteration.push_back(compute_phase(symgs_work(lr, lnz)));  // post-smoothing (after the coarser levels)
  }
  p.iteration.push_back(halo(fine.box));
  p.iteration.push_back(compute_phase(spmv_work(rows, nnz)));   // Ap
  for (int i = 0; i < 3; ++i) {
    p.iteration.push_back(compute_phase(dot_work(rows)));       // r.z, p.Ap, r.r
    p.iteration.push_back(allreduce());
  }
  for (int i = 0; i < 3; ++i) p.iteration.push_back(compute_phase(axpy_work(rows)));  // x, r, p
  return p;
}

}  // namespace hpcsim

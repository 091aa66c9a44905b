#include "workloads/hpc/stencil_app.h"

#include <algorithm>
#include <cmath>

namespace hpcsim {

bool stencil_points_valid(int dims, int points) {
  return (dims == 2 && (points == 5 || points == 9)) || (dims == 3 && (points == 7 || points == 27));
}

bool stencil_has_diagonals(int points) { return points == 9 || points == 27; }

std::array<double, 3> stencil_box(const StencilConfig& c, const ProcessGrid& grid) {
  std::array<double, 3> box{};
  for (int d = 0; d < 3; ++d) box[d] = std::ceil(c.grid[d] / grid.dims[d]);
  return box;
}

SpmdProgram stencil_program(const StencilConfig& c, int ranks) {
  SpmdProgram p;
  p.grid = balanced_grid(ranks, c.dims, c.grid);
  p.iterations = c.iterations;
  const std::array<double, 3> box = stencil_box(c, p.grid);
  const double cells = box[0] * box[1] * box[2];
  // Interior: the cells at least `ghost` from every face that has a neighbour.
  double interior = 1;
  for (int d = 0; d < 3; ++d) {
    const double cut = p.grid.dims[d] > 1 ? 2.0 * c.ghost : 0.0;
    interior *= std::max(0.0, box[d] - cut);
  }
  const bool diagonals = stencil_has_diagonals(c.points);
  SpmdPhase halo;
  halo.kind = SpmdPhaseKind::halo;
  halo.overlap = c.overlap;
  if (c.method == StencilMethod::sweep) {
    halo.halo = box_halo(box, c.ghost, 8.0 * c.fields, diagonals);
    p.iteration.push_back(halo);
    if (c.overlap) {
      p.iteration.push_back(compute_phase(stencil_work(interior * c.fields, c.points)));
      p.iteration.push_back(compute_phase(stencil_work((cells - interior) * c.fields, c.points)));
    } else {
      p.iteration.push_back(compute_phase(stencil_work(cells * c.fields, c.points)));
    }
    return p;
  }
  // CG: the matrix has one nonzero per stencil point (rows at the domain's faces have fewer; ignored), the
  // halo is one layer of p.
  halo.halo = box_halo(box, 1, 8.0, diagonals);
  const double interior_cg = [&] {
    double v = 1;
    for (int d = 0; d < 3; ++d) v *= std::max(0.0, box[d] - (p.grid.dims[d] > 1 ? 2.0 : 0.0));
    return v;
  }();
  p.iteration.push_back(halo);
  if (c.overlap) {
    p.iteration.push_back(compute_phase(spmv_work(interior_cg, interior_cg * c.points)));
    p.iteration.push_back(compute_phase(spmv_work(cells - interior_cg, (cells - interior_cg) * c.points)));
  } else {
    p.iteration.push_back(compute_phase(spmv_work(cells, cells * c.points)));
  }
  SpmdPhase reduce;
  reduce.kind = SpmdPhaseKind::allreduce;
  reduce.bytes = 8;
  p.iteration.push_back(compute_phase(dot_work(cells)));   // p . Ap
  p.iteration.push_back(reduce);
  p.iteration.push_back(compute_phase(axpy_work(cells)));  // x += alpha p
  p.iteration.push_back(compute_phase(axpy_work(cells)));  // r -= alpha Ap
  p.iteration.push_back(compute_phase(dot_work(cells)));   // r . r
  p.iteration.push_back(reduce);
  p.iteration.push_back(compute_phase(axpy_work(cells)));  // p = r + beta p
  return p;
}

}  // namespace hpcsim

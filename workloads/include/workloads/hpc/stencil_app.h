#pragma once
// The stencil / halo-exchange application and CG on its matrix, compiled to an SPMD program
// (spmd_program.h). A 2D (5- or 9-point) or 3D (7- or 27-point) stencil on a global grid decomposed over
// the ranks (balanced_grid: the process grid with the least halo surface); every iteration exchanges
// `ghost` layers of `fields` FP64 values with the face neighbours (and the edge and corner neighbours for
// the 9- and 27-point stencils), then sweeps the rank's box. With `overlap` the exchange runs behind the
// interior sweep (the cells at least `ghost` from the box's faces) and the boundary cells follow it.
// `method: cg` runs conjugate gradients on the stencil's matrix instead (one nonzero per stencil point):
// per iteration a halo exchange of p, SpMV, two dot products each ending in an 8-byte all-reduce, and three
// AXPYs (x, r, p).
#include <array>

#include "configs/enum_names.h"
#include "workloads/hpc/spmd_program.h"

namespace hpcsim {

enum class StencilMethod { sweep, cg };
inline constexpr EnumNames<StencilMethod, 2> kStencilMethodNames{{{
    {StencilMethod::sweep, "sweep"}, {StencilMethod::cg, "cg"}}}};

struct StencilConfig {
  int dims = 3;                          // 2 or 3
  int points = 7;                        // 5 or 9 in 2D, 7 or 27 in 3D
  std::array<double, 3> grid{1, 1, 1};   // global cells per dimension (the third 1 in 2D)
  int ghost = 1;                         // halo layers
  int fields = 1;                        // FP64 values per cell, each swept and exchanged
  long long iterations = 100;
  bool overlap = false;
  StencilMethod method = StencilMethod::sweep;
};

// Whether `points` is a stencil of `dims` dimensions this model knows (5/9, 7/27).
bool stencil_points_valid(int dims, int points);
bool stencil_has_diagonals(int points);  // 9 and 27: edges and corners are exchanged too

// The rank's box (cells per dimension, rounded up: the most loaded rank).
std::array<double, 3> stencil_box(const StencilConfig& config, const ProcessGrid& grid);

SpmdProgram stencil_program(const StencilConfig& config, int ranks);

}  // namespace hpcsim

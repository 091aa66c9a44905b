#pragma once
// NAS Parallel Benchmarks (NPB 3.4, MPI and OpenMP versions) compiled to SPMD programs (spmd_program.h):
// CG (conjugate gradients on a random sparse matrix: 25 inner iterations per outer one, SpMV, dot products,
// AXPYs; MPI: a 2D process grid, the SpMV's partial sums reduced across the process row by recursive halving),
// MG (a V-cycle multigrid on n^3 points: restriction, interpolation, residual and smoother sweeps on every
// level, each followed by a one-layer face exchange; a sweep whose three planes do not fit a thread's cache
// reads its stencil array three times), FT (a 3D FFT PDE solver: evolve, an inverse 3D FFT with
// one all-to-all transpose of the whole array per iteration, a checksum) and IS (a bucket sort of integer keys:
// local bucket counts, an all-reduce of the bucket sizes, an all-to-all of the keys, a per-bucket histogram
// that stays in cache, a prefix sum over the key range). Class parameters and the operation counts behind each
// benchmark's "Mop/s total" are those of the NPB 3.4 sources (setparams.c, cg.f, mg.f, ft.f, is.c).
//
// Not modelled (docs/hpc.md says why): EP (its cost is a serial floating-point dependency chain per random
// number, vranlc, which needs per-core instruction latencies the CPU specs do not carry), LU, BT, SP (their
// 5x5 block solves run far below the roofline's compute rate: a per-code efficiency would be fitted), UA, DT.
#include "configs/enum_names.h"
#include "workloads/hpc/spmd_program.h"

namespace hpcsim {

enum class NpbBenchmark { cg, mg, ft, is };
inline constexpr EnumNames<NpbBenchmark, 4> kNpbBenchmarkNames{{{
    {NpbBenchmark::cg, "cg"}, {NpbBenchmark::mg, "mg"}, {NpbBenchmark::ft, "ft"}, {NpbBenchmark::is, "is"}}}};

struct NpbConfig {
  NpbBenchmark benchmark = NpbBenchmark::cg;
  char npb_class = 'A';  // S, W, A, B, C, D, E (IS: up to D)
};

// The classes a benchmark has ("SWABCDE", IS "SWABCD").
const char* npb_classes(NpbBenchmark benchmark);
bool npb_class_valid(NpbBenchmark benchmark, char npb_class);

// The operation count NPB divides by the time for its "Mop/s total" (millions of operations: CG, MG, FT
// floating-point operations by the codes' own formulas, IS keys ranked).
double npb_mop(const NpbConfig& config);
// Bytes of the benchmark's main arrays over all ranks (the memory check).
double npb_footprint_bytes(const NpbConfig& config);
// NPB's MPI versions of CG, MG, FT and IS run on a power-of-two number of processes.
bool npb_ranks_valid(int ranks);
// The most ranks this model runs a class on: FT one plane of the third dimension per rank (its 1D layout;
// the 2D layout is not modelled), IS one bucket per rank (1,024), CG one row, MG a 2^3 box on the finest level.
double npb_max_ranks(const NpbConfig& config);

// `cache_per_thread`: the cache one thread's sweep may keep (its L2 and its share of the socket's L3): MG's
// 27-point sweeps reuse the planes k-1 and k+1 from cache only while three planes of the rank's box fit it
// (the layer condition of stencil codes, as in the ECM model of Stengel et al., ICS 2015); beyond that the
// stencil array is read three times per sweep.
SpmdProgram npb_program(const NpbConfig& config, int ranks, double cache_per_thread);

}  // namespace hpcsim

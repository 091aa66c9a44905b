#include "workloads/hpc/npb_app.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hpcsim {

namespace {

// NPB 3.4 setparams.c: class parameters by benchmark, classes in the order S, W, A, B, C, D, E. The CG, MG
// and FT rows equal write_cg_info / write_mg_info / write_ft_info of NPB-MPI's sys/setparams.c (checked
// 2026-12-05 against a copy in the code index); IS's come from is.c's class defines (checked against copies
// of is.c; setparams.c only validates IS's class letter).
constexpr const char* kClasses = "SWABCDE";
int class_index(char c) { return static_cast<int>(std::strchr(kClasses, c) - kClasses); }

struct CgClass { double na; double nonzer; double niter; };
constexpr CgClass kCg[] = {{1400, 7, 15},     {7000, 8, 15},     {14000, 11, 15},  {75000, 13, 75},
                           {150000, 15, 75},  {1500000, 21, 100}, {9000000, 26, 100}};
struct MgClass { double n; double nit; };
constexpr MgClass kMg[] = {{32, 4}, {128, 4}, {256, 4}, {256, 20}, {512, 20}, {1024, 50}, {2048, 50}};
struct FtClass { double n1, n2, n3, niter; };
constexpr FtClass kFt[] = {{64, 64, 64, 6},      {128, 128, 32, 6},      {256, 256, 128, 6},     {512, 256, 256, 20},
                           {512, 512, 512, 20},  {2048, 1024, 1024, 25}, {4096, 2048, 2048, 25}};
struct IsClass { int keys_log2, max_key_log2; };
constexpr IsClass kIs[] = {{16, 11}, {20, 16}, {23, 19}, {25, 21}, {27, 23}, {31, 27}};
constexpr double kIsIterations = 10;   // is.c MAX_ITERATIONS
constexpr double kIsBuckets = 1024;    // is.c NUM_BUCKETS (2^10) in the MPI version
constexpr double kCgInner = 25;        // cg.f cgitmax

SpmdPhase compute(HpcKernel kernel, double flops, double bytes) {
  HpcKernelWork w;
  w.kernel = kernel;
  w.flops = flops;
  w.bytes = bytes;
  return compute_phase(w);
}
SpmdPhase halo(const std::array<double, 3>& box) { return halo_phase(box_halo(box, 1, 8.0, false)); }
int log2_int(long long v) {
  int l = 0;
  while ((1LL << (l + 1)) <= v) ++l;
  return l;
}
double nonzeros(const CgClass& c) { return c.na * c.nonzer * (c.nonzer + 1); }

// CG (cg.f): a 2D grid of nprows x npcols ranks (npcols = nprows or 2 nprows); each rank holds nnz / ranks of
// the matrix and vector segments of na / npcols. A dot product sums over the process row: log2(npcols)
// 8-byte exchanges; an SpMV's partial sums are reduced across the row by recursive halving (the segment of
// na / nprows halves each step) and sent to the transpose rank (distance npcols here: the grid's next row).
SpmdProgram cg_program(const CgClass& c, int ranks) {
  SpmdProgram p;
  const int l2 = log2_int(ranks);
  const long long npcols = 1LL << ((l2 + 1) / 2);
  const long long nprows = ranks / npcols;
  p.grid.dims = {static_cast<int>(npcols), static_cast<int>(nprows), 1};
  p.iterations = static_cast<long long>(c.niter);
  const double n = c.na / static_cast<double>(npcols);
  const double nnz = nonzeros(c) / ranks;
  auto reduce = [&](double bytes) {
    for (long long d = 1; d < npcols; d *= 2) p.iteration.push_back(comm_phase(SpmdPhaseKind::p2p, bytes, d));
  };
  auto dot = [&] {
    p.iteration.push_back(compute_phase(dot_work(n)));
    reduce(8);
  };
  auto spmv = [&] {
    p.iteration.push_back(compute_phase(spmv_work(c.na / static_cast<double>(nprows), nnz)));
    double segment = 8 * c.na / static_cast<double>(nprows);
    for (long long d = npcols / 2; d >= 1; d /= 2) {
      segment /= 2;
      p.iteration.push_back(comm_phase(SpmdPhaseKind::p2p, segment, d));
    }
    if (npcols > 1 && nprows > 1) p.iteration.push_back(comm_phase(SpmdPhaseKind::p2p, 8 * n / nprows, npcols));
  };
  // conj_grad: r = x, p = r (q = z = 0), rho = r.r; 25 iterations; the residual ||x - A z||.
  p.iteration.push_back(compute(HpcKernel::axpy, 0, 8 * n * 5));
  dot();
  for (int i = 0; i < kCgInner; ++i) {
    spmv();                                             // q = A p
    dot();                                              // p.q
    p.iteration.push_back(compute_phase(axpy_work(n)));       // z += alpha p
    p.iteration.push_back(compute_phase(axpy_work(n)));       // r -= alpha q
    dot();                                              // r.r
    p.iteration.push_back(compute_phase(axpy_work(n)));       // p = r + beta p
  }
  spmv();                                               // r = A z
  dot();                                                // ||x - r||
  // The outer iteration: x.z and z.z in one pass and one 16-byte sum, then x = z / ||z||.
  p.iteration.push_back(compute(HpcKernel::dot, 4 * n, 16 * n));
  reduce(16);
  p.iteration.push_back(compute(HpcKernel::axpy, n, 16 * n));
  return p;
}

// MG (mg.f): per iteration the V-cycle mg3P (restriction rprj3 down to the coarsest level, a smoothing psinv
// there, then on the way up interp, resid and psinv) and the residual at the finest level; every sweep but
// interp ends in comm3, a one-layer face exchange of the level's box. Bytes per point of a level: rprj3
// reads r and writes the coarser r (1 + 1/8 arrays), zero3 writes u, interp reads the coarser u and updates
// u (2 + 1/8), resid and psinv read two arrays and write one (3; 5 past the layer condition). The FLOPs are NPB's own count (58 per
// finest point per iteration) shared among the sweeps by their bytes (the sweeps are bandwidth-bound).
SpmdProgram mg_program(const MgClass& c, int ranks, double cache_per_thread) {
  SpmdProgram p;
  p.grid = balanced_grid(ranks, 3, {c.n, c.n, c.n});
  p.iterations = static_cast<long long>(c.nit);
  const int lt = log2_int(static_cast<long long>(c.n));
  auto box = [&](int k) {
    std::array<double, 3> b{};
    for (int d = 0; d < 3; ++d) b[d] = std::max(1.0, std::ldexp(1.0, k) / p.grid.dims[d]);
    return b;
  };
  auto points = [&](int k) {
    const std::array<double, 3> b = box(k);
    return b[0] * b[1] * b[2];
  };
  // resid and psinv read one array at 27 points and one at the point, and write one: 3 arrays when the
  // planes k-1, k, k+1 of the stencil array stay in cache between rows of planes, 5 when they do not.
  auto sweep27 = [&](int k) {
    const std::array<double, 3> b = box(k);
    return 8 * points(k) * (3 * 8 * b[0] * b[1] <= cache_per_thread ? 3 : 5);
  };
  struct Sweep { double bytes; bool exchange; int level; };
  std::vector<Sweep> sweeps;
  for (int k = lt; k >= 2; --k) sweeps.push_back({8 * (points(k) + points(k - 1)), true, k - 1});  // rprj3
  sweeps.push_back({8 * points(1), false, 1});          // zero3
  sweeps.push_back({sweep27(1), true, 1});              // psinv at the coarsest level
  for (int k = 2; k <= lt; ++k) {
    if (k < lt) sweeps.push_back({8 * points(k), false, k});  // zero3
    sweeps.push_back({8 * (points(k - 1) + 2 * points(k)), false, k});  // interp
    sweeps.push_back({sweep27(k), true, k});            // resid
    sweeps.push_back({sweep27(k), true, k});            // psinv
  }
  sweeps.push_back({sweep27(lt), true, lt});            // resid at the finest level (mg.f's loop)
  double total = 0;
  for (const Sweep& s : sweeps) total += s.bytes;
  const double flops = 58 * points(lt);
  for (const Sweep& s : sweeps) {
    p.iteration.push_back(compute(HpcKernel::stencil, flops * s.bytes / total, s.bytes));
    if (s.exchange && ranks > 1) p.iteration.push_back(halo(box(s.level)));
  }
  // Timed before the iterations: one residual at the finest level.
  p.setup.push_back(compute(HpcKernel::stencil, flops * sweep27(lt) / total, sweep27(lt)));
  if (ranks > 1) p.setup.push_back(halo(box(lt)));
  return p;
}

// One 3D FFT (ft.f, 1D layout: each rank a slab of n3 / ranks planes): 1D FFTs along the two local
// dimensions, then with several ranks the transpose (a local transpose, the all-to-all of the whole slab, a
// local transpose back), then the FFTs along the third. A pass of 1D FFTs of length m over the slab is
// 5 log2(m) FLOP per point (radix-2 count) and reads and writes the array once (16-byte complex values;
// FT blocks the 1D FFTs in cache).
void fft3d(std::vector<SpmdPhase>& out, const FtClass& c, int ranks, double points) {
  const double lengths[3] = {c.n1, c.n2, c.n3};
  for (int d = 0; d < 3; ++d) {
    const double m = lengths[d];
    if (d == 2 && ranks > 1) {
      out.push_back(compute(HpcKernel::axpy, 0, 32 * points));
      out.push_back(comm_phase(SpmdPhaseKind::alltoall, 16 * points / ranks));
      out.push_back(compute(HpcKernel::axpy, 0, 32 * points));
    }
    out.push_back(compute(HpcKernel::stencil, 5 * std::log2(m) * points, 32 * points));
  }
}

// FT: timed from the set-up on (the index map's exponentials, the initial conditions, the forward FFT),
// then per iteration evolve (u0 *= twiddle, u1 = u0: read 24, write 32 bytes per point), the inverse FFT and
// a checksum of 1,024 points summed over the ranks (16 bytes).
SpmdProgram ft_program(const FtClass& c, int ranks) {
  SpmdProgram p;
  p.grid.dims = {ranks, 1, 1};
  p.iterations = static_cast<long long>(c.niter);
  const double points = c.n1 * c.n2 * c.n3 / ranks;
  p.setup.push_back(compute(HpcKernel::stencil, 0, 8 * points));   // twiddle factors
  p.setup.push_back(compute(HpcKernel::axpy, 0, 16 * points));     // initial conditions
  fft3d(p.setup, c, ranks, points);
  p.iteration.push_back(compute(HpcKernel::axpy, 2 * points, 56 * points));
  fft3d(p.iteration, c, ranks, points);
  p.iteration.push_back(comm_phase(SpmdPhaseKind::allreduce, 16));
  return p;
}

// IS (is.c): per iteration every rank reads its keys twice (bucket sizes, then the scatter into its buckets:
// 12 bytes per key), the bucket sizes are summed over the ranks (an all-reduce of 1,024 4-byte counts), the
// send counts and the keys are exchanged all-to-all, and the rank counts its received keys bucket by bucket
// (a bucket's slice of the key range stays in cache: one read of 4 bytes per key) and zeroes and
// prefix-sums its share of the key range (12 bytes per key value). Integer work: no FLOPs.
SpmdProgram is_program(const IsClass& c, int ranks) {
  SpmdProgram p;
  p.grid.dims = {ranks, 1, 1};
  p.iterations = static_cast<long long>(kIsIterations);
  const double keys = std::ldexp(1.0, c.keys_log2) / ranks;
  const double range = std::ldexp(1.0, c.max_key_log2) / ranks;
  p.iteration.push_back(compute(HpcKernel::axpy, 0, 12 * keys));
  if (ranks > 1) {
    p.iteration.push_back(comm_phase(SpmdPhaseKind::allreduce, 4 * kIsBuckets));
    p.iteration.push_back(comm_phase(SpmdPhaseKind::alltoall, 4));
    p.iteration.push_back(comm_phase(SpmdPhaseKind::alltoall, 4 * keys / ranks));
  }
  p.iteration.push_back(compute(HpcKernel::axpy, 0, 4 * keys + 12 * range));
  return p;
}

}  // namespace

const char* npb_classes(NpbBenchmark b) { return b == NpbBenchmark::is ? "SWABCD" : kClasses; }

bool npb_class_valid(NpbBenchmark b, char c) { return c != '\0' && std::strchr(npb_classes(b), c) != nullptr; }

bool npb_ranks_valid(int ranks) { return ranks >= 1 && (ranks & (ranks - 1)) == 0; }

double npb_mop(const NpbConfig& cfg) {
  const int i = class_index(cfg.npb_class);
  switch (cfg.benchmark) {
    case NpbBenchmark::cg: {
      const CgClass& c = kCg[i];
      const double nz = c.nonzer * (c.nonzer + 1);
      return 2 * c.niter * c.na * (3 + nz + 25 * (5 + nz) + 3) * 1e-6;  // cg.f
    }
    case NpbBenchmark::mg: return 58 * kMg[i].nit * std::pow(kMg[i].n, 3) * 1e-6;  // mg.f
    case NpbBenchmark::ft: {
      const FtClass& c = kFt[i];
      const double n = c.n1 * c.n2 * c.n3;
      return 1e-6 * n * (14.8157 + 7.19641 * std::log(n) + (5.23518 + 7.21113 * std::log(n)) * c.niter);  // ft.f
    }
    case NpbBenchmark::is: return kIsIterations * std::ldexp(1.0, kIs[i].keys_log2) * 1e-6;  // is.c
  }
  return 0;
}

double npb_max_ranks(const NpbConfig& cfg) {
  const int i = class_index(cfg.npb_class);
  switch (cfg.benchmark) {
    case NpbBenchmark::cg: return kCg[i].na;
    case NpbBenchmark::mg: return std::pow(kMg[i].n / 2, 3);
    case NpbBenchmark::ft: return kFt[i].n3;
    case NpbBenchmark::is: return kIsBuckets;
  }
  return 0;
}

double npb_footprint_bytes(const NpbConfig& cfg) {
  const int i = class_index(cfg.npb_class);
  switch (cfg.benchmark) {
    case NpbBenchmark::cg: return 12 * nonzeros(kCg[i]) + 60 * kCg[i].na;  // values + column indices, 7 vectors
    case NpbBenchmark::mg: return 8 * std::pow(kMg[i].n, 3) * (2 * 8.0 / 7 + 1);  // u, r on every level; v
    case NpbBenchmark::ft: return 56 * kFt[i].n1 * kFt[i].n2 * kFt[i].n3;       // u0, u1, u2 complex; twiddle
    case NpbBenchmark::is: return 12 * std::ldexp(1.0, kIs[i].keys_log2) + 4 * std::ldexp(1.0, kIs[i].max_key_log2);
  }
  return 0;
}

SpmdProgram npb_program(const NpbConfig& cfg, int ranks, double cache_per_thread) {
  const int i = class_index(cfg.npb_class);
  switch (cfg.benchmark) {
    case NpbBenchmark::cg: return cg_program(kCg[i], ranks);
    case NpbBenchmark::mg: return mg_program(kMg[i], ranks, cache_per_thread);
    case NpbBenchmark::ft: return ft_program(kFt[i], ranks);
    case NpbBenchmark::is: return is_program(kIs[i], ranks);
  }
  return {};
}

}  // namespace hpcsim

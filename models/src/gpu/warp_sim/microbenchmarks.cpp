#include "models/gpu/warp_sim/microbenchmarks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/gpu/warp_sim/kernel_twins.h"

namespace hpcsim {

namespace {

constexpr int kStreamThreads = 256;  // as bench/cuda/triad_bench.cu (kTriadThreads)
constexpr std::int64_t kPointerChaseStride = 128;  // one load per cache line, as gpu-benches' latency test
constexpr int kPointerChaseSample = 4096;          // timed loads after one warming pass

std::string kv(const char* key, std::int64_t value) { return std::string(key) + "=" + std::to_string(value); }

// As many resident blocks as the GPU holds (the suite's grids: cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs).
std::int64_t full_grid(const GpuSpec& gpu, int threads, int regs, int smem = 0) {
  LaunchResources r;
  r.threads_per_block = threads;
  r.registers_per_thread = regs;
  r.smem_per_block = smem;
  return static_cast<std::int64_t>(compute_occupancy(gpu.sm, r).active_blocks_per_sm) * gpu.sm_count;
}

struct Runner {
  const GpuSpec& gpu;
  const WarpSimOptions& options;
  bool keep;
  MicrobenchRun out;

  const WarpSimResult& run(const std::string& params, KernelProgram program, const WarpSimOptions* own = nullptr) {
    WarpSimResult r = simulate_kernel(gpu, program, own ? *own : options);
    out.kernels.push_back({params, keep ? std::move(program) : KernelProgram{}, std::move(r)});
    return out.kernels.back().result;
  }
  void row(const std::string& bench, const std::string& params, const char* metric, double value, const char* unit) {
    out.rows.push_back({bench, params, metric, value, unit});
  }
  MicrobenchRun finish() {
    if (!keep) out.kernels.clear();
    return std::move(out);
  }
};

// Grid-stride streaming kernel over n elements of `element_bytes`: `reads` arrays read, one written, `flops`
// FP32 FMAs per element. Whole iterations only: the grid covers n rounded to whole grid strides.
KernelProgram stream_kernel(const std::string& name, const GpuSpec& gpu, std::int64_t n, int reads, int fmas, int threads,
                            int regs, std::int64_t* elements_done) {
  KernelLaunch launch;
  launch.threads_per_block = threads;
  launch.registers_per_thread = regs;
  launch.blocks = full_grid(gpu, threads, regs);
  const std::int64_t stride = launch.blocks * threads;
  const int iters = static_cast<int>(std::max<std::int64_t>(1, (n + stride / 2) / stride));
  *elements_done = static_cast<std::int64_t>(iters) * stride;
  ProgramBuilder b(name, launch);
  const std::int64_t array = *elements_done * 4 + 4096;  // arrays laid out one after another
  b.loop(iters, [&] {
    for (int a = 0; a < reads; ++a) {
      AddressExpr e;
      e.base = (a + 1) * array;
      e.tx = 4;
      e.bx = 4LL * threads;
      e.iter = 4 * stride;
      b.load_global(1 + a, e);
    }
    int value = 1;
    for (int f = 0; f < fmas; ++f) {
      b.fp32(10, value, reads > 1 ? 2 : value);
      value = 10;
    }
    AddressExpr out;
    out.tx = 4;
    out.bx = 4LL * threads;
    out.iter = 4 * stride;
    b.store_global(value, out);
  });
  return b.build();
}

void pointer_chase(Runner& r) {
  std::int64_t top = 4096;
  while (top < 4 * r.gpu.memory.l2_bytes) top *= 2;
  for (std::int64_t f = 4096; f <= top; f *= 2) {
    const int n = static_cast<int>(f / kPointerChaseStride);
    const WarpSimResult& res = r.run(kv("footprint_bytes", f), pointer_chase_kernel(f, kPointerChaseStride, n));
    const int timed = std::min(n, kPointerChaseSample);
    const double cycles = res.clock_reads.at(1) - res.clock_reads.at(0);
    r.row("pointer-chase", kv("footprint_bytes", f), "latency", cycles / timed, "cycles");
  }
}

void coalescing(Runner& r) {
  constexpr int kIters = 16;
  for (int s = 1; s <= 32; ++s) {
    KernelLaunch launch;
    launch.threads_per_block = kStreamThreads;
    launch.registers_per_thread = 32;
    launch.blocks = full_grid(r.gpu, kStreamThreads, 32);
    const std::int64_t threads = launch.blocks * kStreamThreads;
    ProgramBuilder b("coalescing", launch);
    b.loop(kIters, [&] {
      AddressExpr e;
      e.tx = 4LL * s;
      e.bx = 4LL * s * kStreamThreads;
      e.iter = 4LL * s * threads;
      b.load_global(1, e);
      b.fp32(2, 2, 1);
    });
    const std::string p = kv("stride", s);
    const WarpSimResult& res = r.run(p, b.build());
    r.row("coalescing", p, "sectors_per_request", static_cast<double>(res.global_sectors) / res.global_requests, "sectors");
    r.row("coalescing", p, "gbps", 4.0 * threads * kIters / res.time_s / 1e9, "GB/s");
  }
}

// As bench/cuda/bank_conflicts_bench.cu: one block of 1024 threads, each with four independent chains of
// dependent shared loads (the next address waits for the loaded value), lane l of every warp at word
// l * stride of its chain's region. The metric is the suite's: SM cycles between two clock reads around the
// timed loop (each after a barrier, as the kernel's __syncthreads) per warp-wide load. The wavefronts per
// request the engine counted are a second row: the mechanism behind the cycles. The suite's kernel reads
// 4-byte words and names only the stride; the fp64 sweep (8-byte lanes) is the twin's own and says dtype=fp64.
void bank_conflicts(Runner& r) {
  constexpr int kThreads = 1024, kChains = 4, kChainElements = 1024;
  constexpr int kIters = 256;  // the suite's --quick count: the rate is steady long before
  for (const auto& [dtype, bytes] : {std::pair{"fp32", 4}, std::pair{"fp64", 8}}) {
    for (int s = 1; s <= 32; ++s) {
      KernelLaunch launch;
      launch.threads_per_block = kThreads;
      launch.registers_per_thread = 32;
      launch.smem_per_block = kChains * kChainElements * bytes;
      launch.blocks = 1;
      ProgramBuilder b("bank-conflicts", launch);
      b.barrier();
      b.clock();
      b.loop(kIters, [&] {
        for (int c = 0; c < kChains; ++c) {
          AddressExpr e;  // lane * stride elements of chain c's region: every warp reads the same words
          e.base = static_cast<std::int64_t>(c) * kChainElements * bytes;
          e.tdim = 32;
          e.tx = static_cast<std::int64_t>(s) * bytes;
          b.load_shared(1 + c, e, bytes, 1 + c);
        }
      });
      b.barrier();
      b.clock();
      const std::string p = std::string(dtype) == "fp32" ? kv("stride", s) : kv("stride", s) + ";dtype=" + dtype;
      const WarpSimResult& res = r.run(p, b.build());
      const double warp_loads = static_cast<double>(kIters) * kChains * (kThreads / 32);
      r.row("bank-conflicts", p, "cycles_per_access", (res.clock_reads.at(1) - res.clock_reads.at(0)) / warp_loads, "cycles");
      r.row("bank-conflicts", p, "wavefronts_per_request",
            static_cast<double>(res.shared_wavefronts) / res.shared_requests, "wavefronts");
    }
  }
}

void divergence(Runner& r) {
  constexpr int kIters = 16;
  for (int paths = 1; paths <= 32; ++paths) {
    KernelLaunch launch;
    launch.threads_per_block = kStreamThreads;
    launch.registers_per_thread = 32;
    launch.blocks = full_grid(r.gpu, kStreamThreads, 32);
    ProgramBuilder b("divergence", launch);
    b.loop(kIters, [&] {
      b.branch(paths, [&] {
        for (int k = 0; k < 8; ++k) b.fp32(1 + k % 4, 1 + k % 4, 9);  // four independent chains
      });
    });
    const std::string p = kv("paths", paths);
    const WarpSimResult& res = r.run(p, b.build());
    r.row("divergence", p, "time_us", res.time_s * 1e6, "us");
  }
}

void fma_ilp(Runner& r) {
  constexpr int kIters = 256;
  for (int chains = 1; chains <= 8; ++chains) {
    KernelLaunch launch;
    launch.threads_per_block = 32 * r.gpu.sm.sub_partitions;  // one warp per scheduler
    launch.registers_per_thread = 32;
    launch.blocks = r.gpu.sm_count;
    ProgramBuilder b("fma-ilp", launch);
    b.loop(kIters, [&] {
      for (int c = 0; c < chains; ++c) b.fp32(1 + c, 1 + c, 20);
    });
    const std::string p = kv("chains", chains);
    const WarpSimResult& res = r.run(p, b.build());
    r.row("fma-ilp", p, "tflops", res.kernel_flops() / res.time_s / 1e12, "TFLOP/s");
  }
}

void occupancy_sweep(Runner& r) {
  constexpr std::int64_t kElements = std::int64_t{1} << 24;
  for (int block : {64, 128, 256, 512, 1024}) {
    for (int regs : {32, 64, 128, 255}) {
      std::int64_t done = 0;
      KernelProgram k;
      try {
        k = stream_kernel("occupancy-sweep", r.gpu, kElements, 1, 0, block, regs, &done);
      } catch (const InvalidLaunch&) {
        continue;  // the block cannot hold that many registers: no such launch to measure
      }
      const std::string p = kv("block", block) + ";" + kv("regs", regs);
      const WarpSimResult& res = r.run(p, std::move(k));
      r.row("occupancy-sweep", p, "gbps", 8.0 * static_cast<double>(done) / res.time_s / 1e9, "GB/s");
    }
  }
}

// copy and triad: whole grid-stride iterations cover n rounded to the grid; the rate is the simulated one and
// time_us is n's bytes at that rate.
void streaming(Runner& r, const char* bench, const std::vector<std::int64_t>& sizes, bool triad) {
  for (const std::int64_t size : sizes) {
    const std::int64_t n = triad ? size : size / 4;
    std::int64_t done = 0;
    KernelProgram k = triad ? triad_kernel(r.gpu, n) : stream_kernel("copy", r.gpu, n, 1, 0, kStreamThreads, 32, &done);
    if (triad) {
      const std::int64_t stride = k.launch.blocks * k.launch.threads_per_block;
      done = std::max<std::int64_t>(1, (n + stride / 2) / stride) * stride;
    }
    const std::string p = triad ? kv("n", n) + ";dtype=fp32" : kv("bytes", size);
    const WarpSimResult& res = r.run(p, std::move(k));
    const double bytes_per_element = triad ? 12 : 4;  // copy counts the bytes copied once, as the suite does
    const double rate = bytes_per_element * static_cast<double>(done) / res.time_s;
    r.row(bench, p, "time_us", bytes_per_element * static_cast<double>(n) / rate * 1e6, "us");
    r.row(bench, p, "gbps", rate / 1e9, "GB/s");
  }
}

// GEMM tiles share data across SMs through L2 (a row of A tiles serves every block of that row), which one
// representative SM cannot see, so the GEMM twin simulates every SM; its k loop is cut at kGemmSimulatedK
// (kernel_twins.h) to keep the suite's 8192^3 GEMMs to seconds.
void gemm(Runner& r) {
  const std::vector<std::array<std::int64_t, 3>> shapes = {
      {4096, 4096, 4096}, {8192, 8192, 8192}, {3456, 4096, 8192}, {16384, 1024, 4096}, {1024, 1024, 1024}};
  const auto& tensor = r.gpu.tensor_flops_per_clock_per_sm;
  for (const Precision p : {Precision::fp16, Precision::bf16}) {
    if (!tensor[static_cast<int>(p)]) continue;
    // bf16 at fp16's rate runs the very same kernel (same operand bytes, same MMA interval): reuse its rows.
    const bool same_as_fp16 = p == Precision::bf16 && tensor[static_cast<int>(Precision::fp16)] == tensor[static_cast<int>(p)];
    for (const auto& [m, n, k] : shapes) {
      KernelTwin twin = gemm_twin(r.gpu, GemmShape{m, n, k, 1, p});
      if (!twin.available) continue;
      const std::string params = kv("m", m) + ";" + kv("n", n) + ";" + kv("k", k) + ";dtype=" + std::string(to_string(p));
      double seconds = 0;
      if (same_as_fp16) {
        const std::string fp16 = params.substr(0, params.size() - 4) + "fp16";
        for (const MicrobenchRow& row : r.out.rows) {
          if (row.params == fp16 && row.metric == "time_us") seconds = row.value / 1e6;
        }
      } else {
        WarpSimOptions all = r.options;
        all.all_sms = twin.options.all_sms;
        seconds = r.run(params, std::move(twin.program), &all).time_s * twin.time_scale;
      }
      const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
      r.row("gemm", params, "time_us", seconds * 1e6, "us");
      r.row("gemm", params, "tflops", flops / seconds / 1e12, "TFLOP/s");
    }
  }
}

}  // namespace

const std::vector<std::string>& microbench_names() {
  static const std::vector<std::string> names = {"pointer-chase", "coalescing", "bank-conflicts", "divergence", "fma-ilp",
                                                 "occupancy-sweep", "copy", "triad", "gemm"};
  return names;
}

KernelProgram pointer_chase_kernel(std::int64_t footprint_bytes, int stride_bytes, int loads) {
  KernelLaunch launch;
  launch.blocks = 1;
  launch.threads_per_block = 1;
  launch.registers_per_thread = 32;
  ProgramBuilder b("pointer-chase", launch);
  AddressExpr e;  // p = *p through a chain laid out `stride` apart: element i holds the address of i + 1
  e.iter = stride_bytes;
  e.wrap = footprint_bytes;
  b.loop(loads, [&] { b.load_global(0, e, 4, 0); });  // the warming pass
  b.clock(0);
  b.loop(std::min(loads, kPointerChaseSample), [&] { b.load_global(0, e, 4, 0); });
  b.clock(0);
  return b.build();
}

KernelProgram triad_kernel(const GpuSpec& gpu, std::int64_t n) {
  std::int64_t done = 0;
  KernelProgram k = stream_kernel("triad", gpu, n, 2, 1, kStreamThreads, 32, &done);
  return k;
}

KernelProgram gemm_tile_kernel(std::int64_t m, std::int64_t n, std::int64_t k, Precision p) {
  constexpr int kTile = 128, kStep = 32, kThreads = 256;
  const std::int64_t eb = 2;  // fp16 / bf16 operands
  KernelLaunch launch;
  launch.blocks = (m / kTile) * (n / kTile);
  launch.threads_per_block = kThreads;
  launch.registers_per_thread = 128;
  launch.smem_per_block = 2 * kTile * kStep * static_cast<int>(eb);  // A and B tiles of one k step
  const std::int64_t a_base = 0, b_base = m * k * eb + 4096, c_base = b_base + k * n * eb + 4096;
  ProgramBuilder b("gemm-tile", launch);
  // Global -> registers: A tile 128 x 32 (64 B rows, 4 x 16 B per row), B tile 32 x 128 (256 B rows, 16 x 16 B).
  auto load_tiles = [&](int reg, int ahead) {
    for (int half = 0; half < 2; ++half) {
      AddressExpr a;
      a.base = a_base + half * 64 * k * eb + ahead * kStep * eb;
      a.tdim = 4, a.tx = 16, a.ty = k * eb;
      a.bdim = n / kTile, a.bx = 0, a.by = kTile * k * eb;
      a.iter = kStep * eb;
      b.load_global(reg + half, a, 16);
      AddressExpr bb;
      bb.base = b_base + half * 16 * n * eb + ahead * kStep * n * eb;
      bb.tdim = 16, bb.tx = 16, bb.ty = n * eb;
      bb.bdim = n / kTile, bb.bx = kTile * eb, bb.by = 0;
      bb.iter = kStep * n * eb;
      b.load_global(reg + 2 + half, bb, 16);
    }
  };
  auto store_tiles = [&](int reg) {
    for (int i = 0; i < 4; ++i) {
      AddressExpr s;  // thread t writes 16 B at t * 16 of each 4 KiB quarter: conflict-free
      s.base = i * kThreads * 16;
      s.tx = 16;
      b.store_shared(reg + i, s, 16);
    }
  };
  load_tiles(40, 0);
  b.loop(static_cast<int>(k / kStep), [&] {
    store_tiles(40);
    b.barrier();
    load_tiles(40, 1);  // the next step's tiles are in flight while this one is multiplied
    for (int k16 = 0; k16 < kStep / 16; ++k16) {
      // Fragments by ldmatrix.x4 (16 B per lane, swizzled: conflict-free): 4 for A's 64 rows, 2 for B's 32 columns.
      for (int f = 0; f < 6; ++f) {
        AddressExpr s;
        s.base = (f * 512 + k16 * 3072) % 16384;
        s.tdim = 32, s.tx = 16;
        b.load_shared(50 + f, s, 16);
      }
      for (int mi = 0; mi < 4; ++mi) {
        for (int ni = 0; ni < 4; ++ni) b.mma(p, mi * 4 + ni, 50 + mi);
      }
    }
    b.barrier();
  });
  // Epilogue: the 128 x 128 C tile in fp16, 8 x 16 B per thread.
  b.loop(8, [&] {
    AddressExpr c;
    c.base = c_base;
    c.tdim = 16, c.tx = 16, c.ty = n * eb;
    c.bdim = n / kTile, c.bx = kTile * eb, c.by = kTile * n * eb;
    c.iter = 16 * n * eb;
    b.store_global(0, c, 16);
  });
  return b.build();
}

MicrobenchRun run_microbench(const GpuSpec& gpu, const std::string& name, const WarpSimOptions& options, bool keep_kernels) {
  Runner r{gpu, options, keep_kernels, {}};
  constexpr std::int64_t MiB = std::int64_t{1} << 20;
  if (name == "pointer-chase") pointer_chase(r);
  else if (name == "coalescing") coalescing(r);
  else if (name == "bank-conflicts") bank_conflicts(r);
  else if (name == "divergence") divergence(r);
  else if (name == "fma-ilp") fma_ilp(r);
  else if (name == "occupancy-sweep") occupancy_sweep(r);
  else if (name == "copy") streaming(r, "copy", {MiB, 16 * MiB, 256 * MiB, 1024 * MiB}, false);
  else if (name == "triad") streaming(r, "triad", {std::int64_t{1} << 20, std::int64_t{1} << 24, std::int64_t{1} << 26}, true);
  else if (name == "gemm") gemm(r);
  else {
    std::string known;
    for (const std::string& n : microbench_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown benchmark '" + name + "' (known: " + known + ")");
  }
  return r.finish();
}

}  // namespace hpcsim

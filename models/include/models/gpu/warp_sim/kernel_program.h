#pragma once
// A kernel as WarpSim runs it: a launch shape and a small straight-line program of warp instructions with
// loops, divergent branches and barriers. Addresses are affine expressions of the thread, the block and the
// loop iterations, so memory behaviour (coalescing, bank conflicts, reuse) follows from the program rather
// than from a stated fraction. Built in C++ with ProgramBuilder or read from YAML (program_yaml.h).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/gpu/kernel_model.h"
#include "models/gpu/precision.h"

namespace hpcsim {

enum class InstrClass : std::uint8_t {
  int_alu, fp32, fp64, sfu, mma,                       // math, each on its own unit
  load_global, store_global, load_shared, store_shared,  // memory
  barrier,                                               // __syncthreads
  clock,                                                 // reads the SM clock once its source register is ready
  loop, end_loop, branch,                                // control: free, as the compiler's loop overhead is
                                                         // either unrolled away or written out as int_alu
  exit,                                                  // implicit: each warp issues it once after the last
};                                                       // instruction (SASS EXIT); not written in programs
std::string_view to_string(InstrClass c);

inline constexpr int kWarpSimRegisters = 64;  // register ids a program may name, 0..63
inline constexpr int kMaxLoopDepth = 4;

// Byte address of one lane's access: base + thread part + block part + iter * (innermost loop's iteration)
// + outer_iter * (the enclosing loop's iteration), then modulo wrap when wrap > 0. The thread part is
// tx * tid when tdim == 0, else tx * (tid % tdim) + ty * (tid / tdim), tid being the thread's index in its
// block; the block part likewise with bdim, bx, by and the block index. Two-dimensional tiles (GEMM, stencils)
// need exactly this split.
struct AddressExpr {
  std::int64_t base = 0;
  std::int64_t tdim = 0, tx = 0, ty = 0;
  std::int64_t bdim = 0, bx = 0, by = 0;
  std::int64_t iter = 0, outer_iter = 0;
  std::int64_t wrap = 0;

  std::int64_t at(std::int64_t tid, std::int64_t block, std::int64_t it, std::int64_t outer) const {
    std::int64_t a = base + iter * it + outer_iter * outer;
    a += tdim == 0 ? tx * tid : tx * (tid % tdim) + ty * (tid / tdim);
    a += bdim == 0 ? bx * block : bx * (block % bdim) + by * (block / bdim);
    if (wrap > 0) a = ((a % wrap) + wrap) % wrap;
    return a;
  }
};

struct Instr {
  InstrClass cls = InstrClass::fp32;
  std::int8_t dst = -1;          // register written, -1: none
  std::int8_t src[2] = {-1, -1};  // registers read
  Precision precision = Precision::fp16;  // mma: the tensor precision (one m16n8k16 MMA = 4096 FLOPs)
  int element_bytes = 4;         // memory: bytes each lane accesses (4, 8 or 16)
  AddressExpr addr;              // memory
  int count = 0;                 // loop: trip count; branch: paths (lanes take path lane % paths)
  int span = 0;                  // loop: index of its end_loop; end_loop: index of its loop; branch: instructions per path
};

inline constexpr double kMmaFlops = 2.0 * 16 * 8 * 16;  // one mma.sync m16n8k16

struct KernelProgram {
  std::string name;
  KernelLaunch launch;
  std::vector<Instr> code;
};

// Throws std::invalid_argument naming the instruction for a program WarpSim cannot run: a register out of
// range, an unmatched loop, a branch body holding a loop or barrier or running past the program, a bad
// element size, a launch without threads or blocks.
void validate_program(const KernelProgram& program);

// Warp instructions one warp issues running the program (loops multiplied out, a branch body once per path),
// counted before simulating so that a launch too large to simulate is refused rather than run for hours.
double issued_per_warp(const KernelProgram& program);

// Builds programs with nesting by closure:
//   ProgramBuilder b("triad", launch);
//   b.loop(iters, [&] { b.load_global(1, addr_b); b.load_global(2, addr_c); b.fp32(3, 1, 2); b.store_global(3, addr_a); });
class ProgramBuilder {
 public:
  ProgramBuilder(std::string name, const KernelLaunch& launch);

  ProgramBuilder& int_alu(int dst, int a = -1, int b = -1) { return math(InstrClass::int_alu, dst, a, b); }
  ProgramBuilder& fp32(int dst, int a = -1, int b = -1) { return math(InstrClass::fp32, dst, a, b); }
  ProgramBuilder& fp64(int dst, int a = -1, int b = -1) { return math(InstrClass::fp64, dst, a, b); }
  ProgramBuilder& sfu(int dst, int a = -1) { return math(InstrClass::sfu, dst, a, -1); }
  ProgramBuilder& mma(Precision p, int acc, int fragment);  // acc += fragment x fragment
  ProgramBuilder& load_global(int dst, const AddressExpr& a, int element_bytes = 4, int addr_reg = -1);
  ProgramBuilder& store_global(int value, const AddressExpr& a, int element_bytes = 4);
  ProgramBuilder& load_shared(int dst, const AddressExpr& a, int element_bytes = 4, int addr_reg = -1);
  ProgramBuilder& store_shared(int value, const AddressExpr& a, int element_bytes = 4);
  ProgramBuilder& barrier();
  ProgramBuilder& clock(int after = -1);  // waits for register `after`, as a clock read that uses a loaded value
  ProgramBuilder& loop(int count, const std::function<void()>& body);
  // Lanes take path lane % paths; each path runs `body` with only its lanes active, one after another, and
  // the warp reconverges after the last.
  ProgramBuilder& branch(int paths, const std::function<void()>& body);

  KernelProgram build();  // validated

 private:
  ProgramBuilder& math(InstrClass c, int dst, int a, int b);
  ProgramBuilder& memory(InstrClass c, int reg_dst, int reg_src, const AddressExpr& a, int element_bytes, int addr_reg);
  KernelProgram program_;
};

}  // namespace hpcsim

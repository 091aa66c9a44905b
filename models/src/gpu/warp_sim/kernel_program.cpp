#include "models/gpu/warp_sim/kernel_program.h"

#include <stdexcept>

namespace hpcsim {

std::string_view to_string(InstrClass c) {
  switch (c) {
    case InstrClass::int_alu: return "int";
    case InstrClass::fp32: return "fp32";
    case InstrClass::fp64: return "fp64";
    case InstrClass::sfu: return "sfu";
    case InstrClass::mma: return "mma";
    case InstrClass::load_global: return "load_global";
    case InstrClass::store_global: return "store_global";
    case InstrClass::load_shared: return "load_shared";
    case InstrClass::store_shared: return "store_shared";
    case InstrClass::barrier: return "barrier";
    case InstrClass::clock: return "clock";
    case InstrClass::loop: return "loop";
    case InstrClass::end_loop: return "end_loop";
    case InstrClass::branch: return "branch";
    case InstrClass::exit: return "exit";
  }
  return "?";
}

namespace {

bool is_memory(InstrClass c) {
  return c == InstrClass::load_global || c == InstrClass::store_global || c == InstrClass::load_shared ||
         c == InstrClass::store_shared;
}

[[noreturn]] void bad(const KernelProgram& p, std::size_t at, const std::string& what) {
  throw std::invalid_argument("kernel '" + p.name + "' instruction " + std::to_string(at) + " (" +
                              std::string(to_string(p.code[at].cls)) + "): " + what);
}

}  // namespace

void validate_program(const KernelProgram& p) {
  if (p.launch.blocks < 1) throw std::invalid_argument("kernel '" + p.name + "': needs at least one block");
  if (p.launch.threads_per_block < 1) throw std::invalid_argument("kernel '" + p.name + "': needs at least one thread per block");
  int depth = 0;
  std::size_t branch_end = 0;  // instructions before this index are inside a branch body
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instr& in = p.code[i];
    for (int r : {static_cast<int>(in.dst), static_cast<int>(in.src[0]), static_cast<int>(in.src[1])}) {
      if (r < -1 || r >= kWarpSimRegisters) bad(p, i, "register " + std::to_string(r) + " is not in 0.." + std::to_string(kWarpSimRegisters - 1));
    }
    if (is_memory(in.cls) && in.element_bytes != 4 && in.element_bytes != 8 && in.element_bytes != 16) {
      bad(p, i, "element_bytes must be 4, 8 or 16, not " + std::to_string(in.element_bytes));
    }
    const bool in_branch = i < branch_end;
    switch (in.cls) {
      case InstrClass::loop:
        if (in_branch) bad(p, i, "a branch body cannot hold a loop");
        if (in.count < 0) bad(p, i, "a negative trip count");
        if (++depth > kMaxLoopDepth) bad(p, i, "loops nest deeper than " + std::to_string(kMaxLoopDepth));
        if (in.span <= static_cast<int>(i) || in.span >= static_cast<int>(p.code.size()) ||
            p.code[in.span].cls != InstrClass::end_loop || p.code[in.span].span != static_cast<int>(i)) {
          bad(p, i, "no matching end_loop");
        }
        break;
      case InstrClass::end_loop:
        if (--depth < 0) bad(p, i, "end_loop without a loop");
        break;
      case InstrClass::branch:
        if (in_branch) bad(p, i, "branches do not nest");
        if (in.count < 1) bad(p, i, "a branch needs at least one path");
        if (in.span < 1 || i + 1 + static_cast<std::size_t>(in.span) > p.code.size()) bad(p, i, "the body runs past the program");
        branch_end = i + 1 + static_cast<std::size_t>(in.span);
        break;
      case InstrClass::exit:
        bad(p, i, "exit is implicit at the end of the program");
      case InstrClass::barrier:
        if (in_branch) bad(p, i, "a barrier inside a divergent branch deadlocks");
        break;
      default:
        break;
    }
  }
  if (depth != 0) throw std::invalid_argument("kernel '" + p.name + "': a loop is not closed");
}

double issued_per_warp(const KernelProgram& program) {
  std::vector<double> scale{1.0};  // product of the enclosing loops' trip counts
  double issued = 1.0;             // the implicit exit
  std::size_t branch_end = 0;
  double paths = 1.0;
  for (std::size_t i = 0; i < program.code.size(); ++i) {
    const Instr& in = program.code[i];
    if (i >= branch_end) paths = 1.0;
    switch (in.cls) {
      case InstrClass::loop: scale.push_back(scale.back() * in.count); break;
      case InstrClass::end_loop: if (scale.size() > 1) scale.pop_back(); break;
      case InstrClass::branch:
        branch_end = i + 1 + static_cast<std::size_t>(in.span);
        paths = in.count;
        break;
      default: issued += scale.back() * paths; break;
    }
  }
  return issued;
}

ProgramBuilder::ProgramBuilder(std::string name, const KernelLaunch& launch) {
  program_.name = std::move(name);
  program_.launch = launch;
}

ProgramBuilder& ProgramBuilder::math(InstrClass c, int dst, int a, int b) {
  Instr in;
  in.cls = c;
  in.dst = static_cast<std::int8_t>(dst);
  in.src[0] = static_cast<std::int8_t>(a);
  in.src[1] = static_cast<std::int8_t>(b);
  program_.code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::mma(Precision p, int acc, int fragment) {
  math(InstrClass::mma, acc, acc, fragment);
  program_.code.back().precision = p;
  return *this;
}

ProgramBuilder& ProgramBuilder::memory(InstrClass c, int reg_dst, int reg_src, const AddressExpr& a, int element_bytes,
                                       int addr_reg) {
  Instr in;
  in.cls = c;
  in.dst = static_cast<std::int8_t>(reg_dst);
  in.src[0] = static_cast<std::int8_t>(reg_src);
  in.src[1] = static_cast<std::int8_t>(addr_reg);
  in.addr = a;
  in.element_bytes = element_bytes;
  program_.code.push_back(in);
  return *this;
}

ProgramBuilder& ProgramBuilder::load_global(int dst, const AddressExpr& a, int element_bytes, int addr_reg) {
  return memory(InstrClass::load_global, dst, -1, a, element_bytes, addr_reg);
}
ProgramBuilder& ProgramBuilder::store_global(int value, const AddressExpr& a, int element_bytes) {
  return memory(InstrClass::store_global, -1, value, a, element_bytes, -1);
}
ProgramBuilder& ProgramBuilder::load_shared(int dst, const AddressExpr& a, int element_bytes, int addr_reg) {
  return memory(InstrClass::load_shared, dst, -1, a, element_bytes, addr_reg);
}
ProgramBuilder& ProgramBuilder::store_shared(int value, const AddressExpr& a, int element_bytes) {
  return memory(InstrClass::store_shared, -1, value, a, element_bytes, -1);
}

ProgramBuilder& ProgramBuilder::barrier() { return math(InstrClass::barrier, -1, -1, -1); }
ProgramBuilder& ProgramBuilder::clock(int after) { return math(InstrClass::clock, -1, after, -1); }

ProgramBuilder& ProgramBuilder::loop(int count, const std::function<void()>& body) {
  const std::size_t begin = program_.code.size();
  Instr head;
  head.cls = InstrClass::loop;
  head.count = count;
  program_.code.push_back(head);
  body();
  Instr tail;
  tail.cls = InstrClass::end_loop;
  tail.span = static_cast<int>(begin);
  program_.code.push_back(tail);
  program_.code[begin].span = static_cast<int>(program_.code.size() - 1);
  return *this;
}

ProgramBuilder& ProgramBuilder::branch(int paths, const std::function<void()>& body) {
  const std::size_t begin = program_.code.size();
  Instr head;
  head.cls = InstrClass::branch;
  head.count = paths;
  program_.code.push_back(head);
  body();
  program_.code[begin].span = static_cast<int>(program_.code.size() - begin - 1);
  return *this;
}

KernelProgram ProgramBuilder::build() {
  validate_program(program_);
  return program_;
}

}  // namespace hpcsim

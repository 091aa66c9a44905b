#include "models/gpu/warp_sim/program_yaml.h"

#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"

namespace hpcsim {

namespace {

[[noreturn]] void fail(const ConfigNode& at, const std::string& message) { throw ConfigError(at.loc(), message); }

void require(const ConfigNode& n, ConfigNode::Kind kind, const std::string& what) {
  if (n.kind() != kind) fail(n, "expected " + what + ", got " + n.describe());
}

void only(const ConfigNode& map, std::initializer_list<const char*> keys) {
  require(map, ConfigNode::Kind::map, "a map");
  for (const auto& entry : map.entries()) {
    bool known = false;
    std::string list;
    for (const char* k : keys) {
      known = known || entry.key == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!known) throw ConfigError(entry.key_loc, "unknown key '" + entry.key + "' (known: " + list + ")");
  }
}

int reg(const ConfigNode& map, const char* key) {
  const ConfigNode* n = map.find(key);
  if (!n) return -1;
  const std::int64_t r = n->as_int();
  if (r < 0 || r >= kWarpSimRegisters) fail(*n, "a register is 0.." + std::to_string(kWarpSimRegisters - 1));
  return static_cast<int>(r);
}

AddressExpr address(const ConfigNode& map) {
  const ConfigNode& a = map.at("address");
  only(a, {"base", "tdim", "tx", "ty", "bdim", "bx", "by", "iter", "outer_iter", "wrap"});
  AddressExpr e;
  e.base = a.get_int_or("base", 0);
  e.tdim = a.get_int_or("tdim", 0);
  e.tx = a.get_int_or("tx", 0);
  e.ty = a.get_int_or("ty", 0);
  e.bdim = a.get_int_or("bdim", 0);
  e.bx = a.get_int_or("bx", 0);
  e.by = a.get_int_or("by", 0);
  e.iter = a.get_int_or("iter", 0);
  e.outer_iter = a.get_int_or("outer_iter", 0);
  e.wrap = a.get_int_or("wrap", 0);
  if (e.tdim < 0 || e.bdim < 0 || e.wrap < 0) fail(a, "tdim, bdim and wrap cannot be negative");
  // Bounds that keep every address a thread computes inside 64 bits (threads < 2^10 per block, block
  // indices < 2^31, trip counts <= 2^30): a base or wrap within 1 TiB, a stride within 1 GiB.
  constexpr std::int64_t kBase = std::int64_t{1} << 40, kStride = std::int64_t{1} << 30;
  const auto within = [&](const char* key, std::int64_t v, std::int64_t bound) {
    if (v > bound || v < -bound) fail(*a.find(key), std::string(key) + " is at most 2^" + (bound == kBase ? "40" : "30") + " in size");
  };
  if (a.find("base")) within("base", e.base, kBase);
  if (a.find("wrap")) within("wrap", e.wrap, kBase);
  for (const auto& [key, v] : {std::pair<const char*, std::int64_t>{"tdim", e.tdim}, {"tx", e.tx}, {"ty", e.ty}, {"bdim", e.bdim},
                               {"bx", e.bx}, {"by", e.by}, {"iter", e.iter}, {"outer_iter", e.outer_iter}}) {
    if (a.find(key)) within(key, v, kStride);
  }
  return e;
}

int element_bytes(const ConfigNode& map) {
  const std::int64_t b = map.get_int_or("bytes", 4);
  if (b != 4 && b != 8 && b != 16) fail(map.at("bytes"), "bytes per lane must be 4, 8 or 16");
  return static_cast<int>(b);
}

void body(ProgramBuilder& b, const ConfigNode& list);

void instruction(ProgramBuilder& b, const ConfigNode& item) {
  require(item, ConfigNode::Kind::map, "an instruction (a map with one instruction key)");
  const auto& entries = item.entries();
  if (entries.empty()) fail(item, "an empty instruction");
  const std::string op = entries.front().key;
  const ConfigNode& v = entries.front().value;
  if (op == "loop" || op == "branch") {
    only(item, {op.c_str(), "body"});
    const std::int64_t n = v.as_int();
    if (n < (op == "loop" ? 0 : 1) || n > (op == "loop" ? 1 << 30 : 32)) {
      fail(v, op == "loop" ? "a trip count is 0..2^30" : "a branch has 1..32 paths");
    }
    const ConfigNode& list = item.at("body");
    if (op == "loop") b.loop(static_cast<int>(n), [&] { body(b, list); });
    else b.branch(static_cast<int>(n), [&] { body(b, list); });
    return;
  }
  if (entries.size() != 1) throw ConfigError(entries[1].key_loc, "one instruction per list item");
  if (!v.is_null()) require(v, ConfigNode::Kind::map, "the instruction's fields (a map, {} for none)");
  const ConfigNode empty = ConfigNode::make_map(v.loc());
  const ConfigNode& f = v.is_null() ? empty : v;
  if (op == "int" || op == "fp32" || op == "fp64" || op == "sfu") {
    only(f, {"dst", "src"});
    int src[2] = {-1, -1};
    if (const ConfigNode* s = f.find("src")) {
      require(*s, ConfigNode::Kind::sequence, "a list of up to two registers");
      if (s->items().size() > 2) fail(*s, "at most two source registers");
      for (std::size_t i = 0; i < s->items().size(); ++i) {
        const std::int64_t r = s->items()[i].as_int();
        if (r < 0 || r >= kWarpSimRegisters) fail(s->items()[i], "a register is 0.." + std::to_string(kWarpSimRegisters - 1));
        src[i] = static_cast<int>(r);
      }
    }
    const int dst = reg(f, "dst");
    if (op == "int") b.int_alu(dst, src[0], src[1]);
    else if (op == "fp32") b.fp32(dst, src[0], src[1]);
    else if (op == "fp64") b.fp64(dst, src[0], src[1]);
    else b.sfu(dst, src[0]);
  } else if (op == "mma") {
    only(f, {"precision", "acc", "fragment"});
    const auto p = parse_precision(f.get_string("precision"));
    if (!p) fail(f.at("precision"), "unknown precision '" + f.get_string("precision") + "'");
    b.mma(*p, reg(f, "acc"), reg(f, "fragment"));
  } else if (op == "load_global" || op == "load_shared") {
    only(f, {"dst", "bytes", "address", "after"});
    if (op == "load_global") b.load_global(reg(f, "dst"), address(f), element_bytes(f), reg(f, "after"));
    else b.load_shared(reg(f, "dst"), address(f), element_bytes(f), reg(f, "after"));
  } else if (op == "store_global" || op == "store_shared") {
    only(f, {"value", "bytes", "address"});
    if (op == "store_global") b.store_global(reg(f, "value"), address(f), element_bytes(f));
    else b.store_shared(reg(f, "value"), address(f), element_bytes(f));
  } else if (op == "barrier") {
    only(f, {});
    b.barrier();
  } else if (op == "clock") {
    only(f, {"after"});
    b.clock(reg(f, "after"));
  } else {
    throw ConfigError(entries.front().key_loc, "unknown instruction '" + op +
                                                   "' (known: int, fp32, fp64, sfu, mma, load_global, store_global, "
                                                   "load_shared, store_shared, barrier, clock, loop, branch)");
  }
}

void body(ProgramBuilder& b, const ConfigNode& list) {
  require(list, ConfigNode::Kind::sequence, "a list of instructions");
  for (const ConfigNode& item : list.items()) instruction(b, item);
}

}  // namespace

KernelProgram parse_kernel_program(const ConfigNode& root) {
  only(root, {"kernel", "launch", "program"});
  const ConfigNode& l = root.at("launch");
  only(l, {"blocks", "threads", "registers", "shared_memory"});
  KernelLaunch launch;
  launch.blocks = l.get_int("blocks");
  launch.threads_per_block = static_cast<int>(l.get_int("threads"));
  launch.registers_per_thread = static_cast<int>(l.get_int_or("registers", 32));
  launch.smem_per_block = static_cast<int>(l.get_int_or("shared_memory", 0));
  if (launch.blocks < 1) fail(l.at("blocks"), "at least one block");
  check_count(CountLimit::blocks, static_cast<double>(launch.blocks), l.at("blocks").loc(), "the kernel");
  if (launch.threads_per_block < 1) fail(l.at("threads"), "at least one thread per block");
  ProgramBuilder b(root.get_string_or("kernel", "kernel"), launch);
  body(b, root.at("program"));
  KernelProgram program;
  try {
    program = b.build();
  } catch (const std::invalid_argument& e) {
    throw ConfigError(root.at("program").loc(), e.what());
  }
  const double warps = static_cast<double>(launch.blocks) * std::ceil(launch.threads_per_block / 32.0);
  check_count(CountLimit::warp_instructions, warps * issued_per_warp(program), root.at("program").loc(),
              "the kernel (" + std::to_string(launch.blocks) + " blocks of " +
                  std::to_string(launch.threads_per_block) + " threads)");
  return program;
}

}  // namespace hpcsim

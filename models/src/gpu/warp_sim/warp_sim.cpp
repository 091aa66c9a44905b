#include "models/gpu/warp_sim/warp_sim.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpu/warp_sim/miss_queue.h"
#include "gpu/warp_sim/sector_cache.h"
#include "gpu/warp_sim/throttle_log.h"

namespace hpcsim {

std::string_view to_string(WarpState s) {
  switch (s) {
    case WarpState::issuing: return "issuing";
    case WarpState::memory_wait: return "memory_wait";
    case WarpState::dependency: return "dependency";
    case WarpState::pipe_busy: return "pipe_busy";
    case WarpState::barrier: return "barrier";
    case WarpState::throttled: return "throttled";
    case WarpState::not_selected: return "not_selected";
  }
  return "?";
}

double WarpSimResult::scale() const {
  return blocks_simulated > 0 ? static_cast<double>(kernel_blocks) / static_cast<double>(blocks_simulated) : 0;
}

namespace {

using warp_sim_detail::MissQueue;
using warp_sim_detail::SectorCache;
using warp_sim_detail::ThrottleLog;
constexpr double kNever = std::numeric_limits<double>::infinity();

// Execution units a sub-partition owns; an instruction holds its unit for the class's issue interval.
enum Unit : int { kUnitInt, kUnitFp32, kUnitFp64, kUnitSfu, kUnitMma, kUnitLsu, kUnitNone, kUnits = kUnitNone };

Unit unit_of(InstrClass c) {
  switch (c) {
    case InstrClass::int_alu: return kUnitInt;
    case InstrClass::fp32: return kUnitFp32;
    case InstrClass::fp64: return kUnitFp64;
    case InstrClass::sfu: return kUnitSfu;
    case InstrClass::mma: return kUnitMma;
    case InstrClass::load_global:
    case InstrClass::store_global:
    case InstrClass::load_shared:
    case InstrClass::store_shared: return kUnitLsu;
    default: return kUnitNone;
  }
}

struct Frame {
  int begin = 0, left = 0, iter = 0;
};

// What the scheduler's scan reads of a warp, kept apart from the rest so a scan touches one small array.
struct WarpHot {
  double ops_ready = 0;  // its next instruction's operands are ready
  double throttled_until = 0;  // the latest a scan saw it wait for a miss register since it last issued
  Unit unit = kUnitNone;  // the unit its next instruction needs
  bool global_load = false;
  bool live = false, at_barrier = false;
};

struct Warp {
  int slot = 0;          // block slot on its SM
  int warp_in_block = 0;
  std::int64_t block = 0, age = 0;
  int pc = 0, depth = 0;
  Frame loops[kMaxLoopDepth];
  int div_branch = -1, div_path = 0, div_paths = 0;  // the branch being executed path by path
  std::uint32_t mask = 0, full_mask = 0;
  int active = 0;  // lanes in mask
  std::uint64_t reg_from_memory = 0;  // bit r: register r was last written by a load
  bool ops_from_memory = false;  // refreshed with WarpHot::ops_ready whenever pc moves
  double last_event = 0;   // cycles before this are accounted for in warp_cycles
  std::uint64_t throttle_since = 0;  // its scheduler's ThrottleLog scan number when it got its current instruction
  double reg_ready[kWarpSimRegisters] = {};
};

struct BlockSlot {
  bool live = false;
  std::int64_t block = 0;
  int warps_left = 0, arrived = 0, warps = 0;
  double barrier_arrival = 0;
};

// One sub-partition's warp scheduler; what a scan reads sits together.
struct Scheduler {
  // No warp of it can issue before this cycle. Exact until something makes a warp ready sooner than its own
  // state says (a block launch, a barrier release), which resets it to 0; its own issue resets it too.
  double wake = 0;
  int greedy = -1;  // the warp it issued from last, -1 none
  // Its live warps not held at a barrier, and how many of them need each unit (kUnitNone included) for their
  // next instruction. When all need one math unit and it is busy past the next cycle, the scheduler cannot
  // issue before the unit frees, which the cycle loop uses to let it sleep.
  int candidates = 0;
  std::array<int, kUnits + 1> unit_users{};
  std::array<double, kUnits> unit_free{};
  std::vector<int> warps;  // live warp indices, oldest first
  // What decides whether a scan can pick, summarised over the candidates and kept until one of them changes
  // (its instruction, operands or candidacy) or the scheduler issues (its units' free times): the earliest
  // operand-ready time of those waiting to issue a global load (their ready time also depends on the LSU and
  // the miss registers, which the scan adds), and the earliest ready time of the others.
  bool summary_known = false;
  double global_ops_ready = 0, other_ready = 0;
  // Scans that could not pick are not run: their one effect on the warps, raising the throttled time of
  // global loads held by full miss registers, is logged and settled when each warp issues.
  ThrottleLog throttle_log;
};

struct Sm {
  std::vector<Warp> warps;                // block slot s owns warps [s * warps_per_block, ...)
  std::vector<WarpHot> hot;               // per warp, as warps
  std::vector<BlockSlot> slots;
  std::vector<Scheduler> scheds;          // warp w belongs to scheduler w % sub_partitions
  SectorCache l1;
  double l1_free = 0, smem_free = 0;
  MissQueue misses;
  std::int64_t next_block = 0;            // representative mode: the next of its blocks
  int live_blocks = 0;
  Sm(std::int64_t l1_bytes, const GpuSpec& g)
      : l1(l1_bytes, g.memory.cache_line_bytes, g.memory.sector_bytes, g.warp_sim->l1_ways) {}
};

class Engine {
 public:
  Engine(const GpuSpec& gpu, const KernelProgram& program, const WarpSimOptions& options)
      : gpu_(gpu), ws_(*gpu.warp_sim), program_(program), code_(program.code), options_(options),
        l2_(1, 128, 32, 1) {
    setup();
  }

  WarpSimResult run();

 private:
  void setup();
  double interval(InstrClass c, Precision p) const;
  void launch_block(Sm& sm, int sm_index, int slot, std::int64_t block, double now);
  bool next_block_for(int sm_index, std::int64_t& block);
  void advance(Sm& sm, int wi, double now);
  void refresh(Sm& sm, int wi);
  void account_wait(Warp& w, WarpHot& h, double now, const Sm& sm, int sched);
  void issue(Sm& sm, int sm_index, int sched, int wi, double now);
  double blocked_until(const Sm& sm, int sched, double now) const;
  double global_access(Sm& sm, const Instr& in, const Warp& w, double now, bool store);
  double shared_access(Sm& sm, const Instr& in, const Warp& w, double now);
  double shared_wavefronts(Sm& sm, int wavefronts, double now);  // the bank pipe's time for one access
  void retire_warp(Sm& sm, int sm_index, int wi, double now);
  void record_span(int sm, int sched, InstrClass c, double now);
  // The address of one warp's access without its thread part: the same for every lane.
  std::int64_t warp_address(const Instr& in, const Warp& w) const {
    const AddressExpr& e = in.addr;
    const std::int64_t it0 = w.depth > 0 ? w.loops[w.depth - 1].iter : 0;
    const std::int64_t it1 = w.depth > 1 ? w.loops[w.depth - 2].iter : 0;
    const std::int64_t block = e.bdim == 0 ? e.bx * w.block : e.bx * (w.block % e.bdim) + e.by * (w.block / e.bdim);
    return e.base + e.iter * it0 + e.outer_iter * it1 + block;
  }
  // The thread parts of instruction pc's address for the 32 lanes of a block's warp k (AddressExpr::at less
  // the warp's part), computed once per kernel.
  const std::int64_t* lane_offsets(int pc, int k) const {
    return lane_offsets_.data() + (static_cast<std::size_t>(memory_row_[pc]) * warps_per_block_ + k) * 32;
  }
  static std::int64_t wrapped(std::int64_t a, std::int64_t wrap) { return wrap > 0 ? ((a % wrap) + wrap) % wrap : a; }
  // a / d rounded toward zero as C++ divides, by a shift where d is a power of two and a is not negative.
  static std::int64_t divide(std::int64_t a, std::int64_t d, int shift) { return a >= 0 && shift >= 0 ? a >> shift : a / d; }
  // With every SM simulated, consecutive 256-byte chunks go to consecutive channels, as the memory
  // controllers interleave them. One representative SM cannot use the addresses: its blocks' data sits a
  // whole grid row apart and would fall on a few channels, while the GPU's SMs together cover all of them
  // evenly; so its sectors take the channels in turn, each at its 1/SMs share.
  std::size_t channel_of(std::uint64_t sector) {
    if (!options_.all_sms) return static_cast<std::size_t>(next_channel_++ % channel_free_.size());
    return static_cast<std::size_t>(sector * gpu_.memory.sector_bytes / 256 % channel_free_.size());
  }
  std::uint64_t next_channel_ = 0;

  const GpuSpec& gpu_;
  const WarpSimSpec& ws_;
  const KernelProgram& program_;
  const std::vector<Instr>& code_;
  WarpSimOptions options_;
  WarpSimResult r_;
  int warps_per_block_ = 0, schedulers_ = 0, blocks_per_sm_ = 0;
  std::vector<Sm> sms_;
  SectorCache l2_;
  double l2_free_ = 0;
  double l2_service_ = 0;    // cycles per 32-byte sector on the L2 port (this SM's share)
  double hbm_service_ = 0;   // cycles per sector on one channel (this SM's share)
  std::vector<double> channel_free_;
  double intervals_[kUnits] = {};
  std::int64_t next_global_block_ = 0;
  std::int64_t blocks_to_simulate_ = 0;
  std::int64_t age_ = 0;
  // Per instruction, decoded once: the unit it holds and for how long.
  std::vector<Unit> unit_;
  std::vector<double> hold_;
  std::vector<int> memory_row_;  // memory instructions: their row of lane_offsets_; -1 otherwise
  std::vector<std::int64_t> lane_offsets_;
  std::vector<std::int64_t> lowest_offset_;  // per row of lane_offsets_ and warp of a block: its lowest lane
  // Per row and warp: each lane's offset is at or past the last one's and within its element, so any first
  // lanes' bytes are one range without a gap (a stream, a tile row): its sectors need no sort.
  std::vector<char> dense_;
  // The last shared-memory access of each memory instruction and warp of a block. Moving every lane's address
  // by a whole number of banks' words only renames the banks (words shift by the same count), so an access
  // with the same lanes, no wrap, no negative address and the same base modulo a bank's bytes takes as many
  // wavefronts as the last one.
  struct BankPattern {
    std::uint32_t mask = 0;
    std::int64_t residue = -1;  // base modulo bank bytes; -1: nothing cached
    int wavefronts = 0;
  };
  std::vector<BankPattern> bank_patterns_;
  int sector_shift_ = -1, line_shift_ = -1, bank_shift_ = -1, bank_mask_ = -1;  // -1: not a power of two
  std::vector<double> sm_wake_;  // per simulated SM: its schedulers' earliest wake, kNever once it has no block
  int live_sms_ = 0;
  double end_ = 0;           // latest completion seen (stores drain, last loads)
  std::uint64_t sectors_[128] = {};
  std::int64_t words_[128] = {};
};

void Engine::setup() {
  const KernelLaunch& L = program_.launch;
  LaunchResources res;
  res.threads_per_block = L.threads_per_block;
  res.registers_per_thread = L.registers_per_thread;
  res.smem_per_block = L.smem_per_block;
  r_.occupancy = compute_occupancy(gpu_.sm, res);
  blocks_per_sm_ = r_.occupancy.active_blocks_per_sm;
  if (blocks_per_sm_ < 1) throw std::invalid_argument("kernel '" + program_.name + "': no block fits on an SM");
  warps_per_block_ = (L.threads_per_block + 31) / 32;
  schedulers_ = std::max(1, gpu_.sm.sub_partitions);
  r_.kernel = program_.name;
  r_.schedulers = schedulers_;
  r_.clock_hz = gpu_.boost_clock_hz;
  r_.active_sms = static_cast<int>(std::min<std::int64_t>(L.blocks, gpu_.sm_count));
  r_.kernel_blocks = L.blocks;
  const int nsm = options_.all_sms ? r_.active_sms : 1;
  // The representative SM runs blocks 0, S, 2S, ... of S SMs.
  blocks_to_simulate_ = options_.all_sms ? L.blocks : (L.blocks + gpu_.sm_count - 1) / gpu_.sm_count;
  if (options_.progress) options_.progress(0, blocks_to_simulate_);
  r_.simulated_sms = nsm;
  const double share = options_.all_sms ? 1.0 : 1.0 / r_.active_sms;

  // The driver configures the smallest carveout that holds the resident blocks' shared memory; the rest of
  // the unified array is L1.
  std::int64_t smem_needed = static_cast<std::int64_t>(blocks_per_sm_) * r_.occupancy.smem_per_block;
  std::int64_t carveout = 0;
  for (int c : gpu_.sm.smem_carveouts) {
    if (c >= smem_needed) {
      carveout = c;
      break;
    }
  }
  const std::int64_t l1_bytes = std::max<std::int64_t>(gpu_.sm.l1_smem_bytes - carveout, gpu_.memory.cache_line_bytes);
  const double l2_bytes = gpu_.memory.l2_bytes * share;
  l2_ = SectorCache(static_cast<std::int64_t>(l2_bytes), gpu_.memory.cache_line_bytes, gpu_.memory.sector_bytes, ws_.l2_ways);
  const double clock = gpu_.boost_clock_hz;
  l2_service_ = gpu_.memory.sector_bytes / (gpu_.memory.l2_bandwidth * share / clock);
  // The channels run at the spec's measured streaming fraction of the datasheet bandwidth: WarpSim does not
  // model DRAM rows, refresh or read/write turnaround, which is what that fraction stands for.
  const double channel_bw = gpu_.achievable_memory_bandwidth() * share / ws_.hbm_channels;
  hbm_service_ = gpu_.memory.sector_bytes / (channel_bw / clock);
  channel_free_.assign(ws_.hbm_channels, 0);

  for (int u = 0; u < kUnits; ++u) intervals_[u] = 1;
  const double lanes_per_sub = 1.0 / schedulers_;
  auto lanes_interval = [&](double lanes_per_sm) { return 32.0 / (lanes_per_sm * lanes_per_sub); };
  if (const auto& fp32 = gpu_.vector_flops_per_clock_per_sm[static_cast<int>(Precision::fp32)]) intervals_[kUnitFp32] = lanes_interval(*fp32 / 2);
  if (const auto& fp64 = gpu_.vector_flops_per_clock_per_sm[static_cast<int>(Precision::fp64)]) intervals_[kUnitFp64] = lanes_interval(*fp64 / 2);
  intervals_[kUnitInt] = lanes_interval(ws_.int_lanes_per_sm);
  intervals_[kUnitSfu] = lanes_interval(gpu_.sfu_lanes_per_sm);
  intervals_[kUnitLsu] = lanes_interval(ws_.lsu_lanes_per_sm);
  for (const Instr& in : code_) {
    if (in.cls == InstrClass::fp64 && !gpu_.vector_flops_per_clock_per_sm[static_cast<int>(Precision::fp64)]) {
      throw std::invalid_argument("GPU '" + gpu_.name + "' has no fp64 vector units for kernel '" + program_.name + "'");
    }
    if (in.cls == InstrClass::mma && !gpu_.tensor_flops_per_clock_per_sm[static_cast<int>(in.precision)]) {
      throw std::invalid_argument("GPU '" + gpu_.name + "' has no " + std::string(to_string(in.precision)) +
                                  " tensor units for kernel '" + program_.name + "'");
    }
  }

  const int n = static_cast<int>(code_.size());
  unit_.assign(n, kUnitNone);
  hold_.assign(n, 0);
  memory_row_.assign(n, -1);
  int rows = 0;
  for (int pc = 0; pc < n; ++pc) {
    const Instr& in = code_[pc];
    unit_[pc] = unit_of(in.cls);
    if (unit_[pc] != kUnitNone) hold_[pc] = interval(in.cls, in.precision);
    if (unit_[pc] == kUnitLsu) memory_row_[pc] = rows++;
  }
  lane_offsets_.resize(static_cast<std::size_t>(rows) * warps_per_block_ * 32);
  lowest_offset_.resize(static_cast<std::size_t>(rows) * warps_per_block_);
  bank_patterns_.resize(lowest_offset_.size());
  dense_.resize(lowest_offset_.size());
  for (int pc = 0; pc < n; ++pc) {
    if (memory_row_[pc] < 0) continue;
    const AddressExpr& e = code_[pc].addr;
    for (int k = 0; k < warps_per_block_; ++k) {
      std::int64_t* out = lane_offsets_.data() + (static_cast<std::size_t>(memory_row_[pc]) * warps_per_block_ + k) * 32;
      for (int lane = 0; lane < 32; ++lane) {
        const std::int64_t tid = static_cast<std::int64_t>(k) * 32 + lane;
        out[lane] = e.tdim == 0 ? e.tx * tid : e.tx * (tid % e.tdim) + e.ty * (tid / e.tdim);
      }
      lowest_offset_[static_cast<std::size_t>(memory_row_[pc]) * warps_per_block_ + k] = *std::min_element(out, out + 32);
      bool dense = true;
      for (int lane = 1; lane < 32; ++lane) dense = dense && out[lane] >= out[lane - 1] && out[lane] - out[lane - 1] <= code_[pc].element_bytes;
      dense_[static_cast<std::size_t>(memory_row_[pc]) * warps_per_block_ + k] = dense;
    }
  }
  auto log2_of = [](std::int64_t v) {
    for (int k = 0; k < 62; ++k) {
      if (v == std::int64_t{1} << k) return k;
    }
    return -1;
  };
  sector_shift_ = log2_of(gpu_.memory.sector_bytes);
  line_shift_ = log2_of(gpu_.memory.cache_line_bytes / gpu_.memory.sector_bytes);
  bank_shift_ = log2_of(gpu_.sm.smem_bank_bytes);
  bank_mask_ = log2_of(gpu_.sm.smem_banks) >= 0 ? gpu_.sm.smem_banks - 1 : -1;

  sms_.reserve(nsm);
  for (int i = 0; i < nsm; ++i) {
    sms_.emplace_back(l1_bytes, gpu_);
    Sm& sm = sms_.back();
    sm.warps.resize(static_cast<std::size_t>(blocks_per_sm_) * warps_per_block_);
    sm.hot.resize(sm.warps.size());
    sm.slots.resize(blocks_per_sm_);
    sm.scheds.resize(schedulers_);
    for (Scheduler& sc : sm.scheds) sc.warps.reserve(sm.warps.size());
    sm.next_block = i;
  }
  sm_wake_.assign(nsm, kNever);
  if (options_.trace) r_.trace.reserve(std::min(options_.max_trace_spans, 1 << 16));
}

// The tensor unit's interval is stretched by boost / tensor clock: NVIDIA quotes (and the SM sustains)
// dense tensor rates at the lower clock, and WarpSim counts boost-clock cycles.
double Engine::interval(InstrClass c, Precision p) const {
  if (c == InstrClass::mma) {
    const double rate = *gpu_.tensor_flops_per_clock_per_sm[static_cast<int>(p)] / schedulers_;
    const double clock_ratio = p == Precision::fp64 ? 1.0 : gpu_.boost_clock_hz / gpu_.tensor_clock_hz;
    return kMmaFlops / rate * clock_ratio;
  }
  return intervals_[unit_of(c)];
}

bool Engine::next_block_for(int sm_index, std::int64_t& block) {
  if (options_.all_sms) {
    if (next_global_block_ >= program_.launch.blocks) return false;
    block = next_global_block_++;
    return true;
  }
  Sm& sm = sms_[sm_index];
  if (sm.next_block >= program_.launch.blocks) return false;
  block = sm.next_block;
  sm.next_block += gpu_.sm_count;
  return true;
}

void Engine::launch_block(Sm& sm, int sm_index, int slot, std::int64_t block, double now) {
  (void)sm_index;
  BlockSlot& b = sm.slots[slot];
  b.live = true;
  b.block = block;
  b.warps = warps_per_block_;
  b.warps_left = warps_per_block_;
  b.arrived = 0;
  if (sm.live_blocks++ == 0) ++live_sms_;
  ++r_.blocks_simulated;
  if (options_.progress) options_.progress(r_.blocks_simulated, blocks_to_simulate_);
  for (Scheduler& sc : sm.scheds) sc.wake = 0;
  const int threads = program_.launch.threads_per_block;
  for (int k = 0; k < warps_per_block_; ++k) {
    const int wi = slot * warps_per_block_ + k;
    Warp& w = sm.warps[wi];
    w = Warp{};
    w.slot = slot;
    w.warp_in_block = k;
    w.block = block;
    w.age = age_++;
    const int lanes = std::min(32, threads - k * 32);
    w.full_mask = lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1);
    w.mask = w.full_mask;
    w.active = std::popcount(w.mask);
    w.last_event = now;
    for (double& t : w.reg_ready) t = now;
    const int sched = wi % schedulers_;
    sm.hot[wi] = WarpHot{};
    sm.hot[wi].live = true;
    ++sm.scheds[sched].candidates;
    ++sm.scheds[sched].unit_users[kUnitNone];
    sm.scheds[sched].warps.push_back(wi);
    advance(sm, wi, now);
  }
}

// Runs the free control instructions at pc (loops, branches, reconvergence, clock reads) so that pc rests
// on an instruction that issues, or past the end.
void Engine::advance(Sm& sm, int wi, double now) {
  (void)now;
  Warp& w = sm.warps[wi];
  const int n = static_cast<int>(code_.size());
  for (;;) {
    if (w.div_branch >= 0 && w.pc == w.div_branch + 1 + code_[w.div_branch].span) {
      // End of one path: the next path with lanes, or reconvergence.
      int path = w.div_path + 1;
      std::uint32_t m = 0;
      for (; path < w.div_paths; ++path) {
        m = 0;
        for (int lane = path; lane < 32; lane += w.div_paths) m |= 1u << lane;
        m &= w.full_mask;
        if (m) break;
      }
      if (path < w.div_paths) {
        w.div_path = path;
        w.mask = m;
        w.active = std::popcount(m);
        w.pc = w.div_branch + 1;
      } else {
        w.div_branch = -1;
        w.mask = w.full_mask;
        w.active = std::popcount(w.mask);
      }
      continue;
    }
    if (w.pc >= n) break;
    const Instr& in = code_[w.pc];
    if (in.cls == InstrClass::loop) {
      if (in.count == 0) {
        w.pc = in.span + 1;
      } else {
        w.loops[w.depth++] = Frame{w.pc + 1, in.count, 0};
        ++w.pc;
      }
    } else if (in.cls == InstrClass::end_loop) {
      Frame& f = w.loops[w.depth - 1];
      ++f.iter;
      if (--f.left > 0) {
        w.pc = f.begin;
      } else {
        --w.depth;
        ++w.pc;
      }
    } else if (in.cls == InstrClass::branch) {
      w.div_branch = w.pc;
      w.div_paths = std::min(in.count, 32);
      w.div_path = -1;
      w.pc = w.div_branch + 1 + in.span;  // the path-end check above selects the first path with lanes
      if (in.span == 0) w.div_branch = -1;
    } else {
      break;
    }
  }
  refresh(sm, wi);
}

void Engine::refresh(Sm& sm, int wi) {
  Warp& w = sm.warps[wi];
  WarpHot& h = sm.hot[wi];
  const Unit before = h.unit;
  if (w.pc >= static_cast<int>(code_.size())) {  // EXIT: issues once, waits for nothing
    h.unit = kUnitNone;
    h.ops_ready = 0;
    w.ops_from_memory = false;
    h.global_load = false;
  } else {
    const Instr& in = code_[w.pc];
    h.ops_ready = 0;
    w.ops_from_memory = false;
    for (const std::int8_t s : in.src) {
      if (s >= 0 && w.reg_ready[s] > h.ops_ready) {
        h.ops_ready = w.reg_ready[s];
        w.ops_from_memory = (w.reg_from_memory >> s) & 1u;
      }
    }
    h.unit = unit_[w.pc];
    h.global_load = in.cls == InstrClass::load_global;
  }
  if (h.live && !h.at_barrier) {
    Scheduler& sc = sm.scheds[wi % schedulers_];
    if (h.unit != before) {
      --sc.unit_users[before];
      ++sc.unit_users[h.unit];
    }
    sc.summary_known = false;
    if (h.global_load) w.throttle_since = sc.throttle_log.next_scan();
  }
}

// Splits the cycles since the warp last issued: first the wait for its operands (memory or a math result),
// then, of the unit and the miss registers, whichever came free last held it, and what is left it was ready
// but not picked.
void Engine::account_wait(Warp& w, WarpHot& h, double now, const Sm& sm, int sched) {
  auto& c = r_.warp_cycles;
  // The scans its scheduler skipped while it waited to issue this global load (the ones it ran raised
  // throttled_until themselves).
  if (h.global_load) {
    h.throttled_until = std::max(h.throttled_until, sm.scheds[sched].throttle_log.latest(w.throttle_since, h.ops_ready));
  }
  // A warp issued again before its last issue cycle ended has no waiting to account (without the clamp the
  // first share came out a few cycles negative).
  double t = std::min(w.last_event, now);
  auto take = [&](double until, WarpState s) {
    const double e = std::min(std::max(until, t), now);
    c[static_cast<int>(s)] += static_cast<std::int64_t>(e - t);
    t = e;
  };
  take(h.ops_ready, w.ops_from_memory ? WarpState::memory_wait : WarpState::dependency);
  const double unit = h.unit != kUnitNone ? sm.scheds[sched].unit_free[h.unit] : 0;
  if (h.throttled_until >= unit) take(h.throttled_until, WarpState::throttled);
  else take(unit, WarpState::pipe_busy);
  take(now, WarpState::not_selected);
  h.throttled_until = 0;
}

void Engine::record_span(int sm, int sched, InstrClass c, double now) {
  const auto cycle = static_cast<std::int64_t>(now);
  for (auto it = r_.trace.rbegin(); it != r_.trace.rend() && it - r_.trace.rbegin() < 8; ++it) {
    if (it->sm == sm && it->scheduler == sched) {
      if (it->cls == c && it->end == cycle) {
        it->end = cycle + 1;
        return;
      }
      break;
    }
  }
  if (static_cast<int>(r_.trace.size()) >= options_.max_trace_spans) {
    r_.trace_truncated = true;
    return;
  }
  r_.trace.push_back(IssueSpan{sm, sched, c, cycle, cycle + 1});
}

double Engine::global_access(Sm& sm, const Instr& in, const Warp& w, double now, bool store) {
  // Coalescer: the distinct 32-byte sectors the active lanes touch, in ascending order.
  int n = 0;
  const std::int64_t sector = gpu_.memory.sector_bytes;
  const std::int64_t base = warp_address(in, w);
  const std::int64_t* offsets = lane_offsets(w.pc, w.warp_in_block);
  bool sorted = true;
  const std::size_t row = static_cast<std::size_t>(memory_row_[w.pc]) * warps_per_block_ + w.warp_in_block;
  const int run = std::countr_one(w.mask);  // active lanes 0 .. run-1, and no others?
  const bool dense = dense_[row] && in.addr.wrap == 0 && run == w.active && run > 0 && base + offsets[0] >= 0;
  if (dense) {
    // The lanes' bytes, in lane order, leave no gap: their sectors are one ascending range.
    const std::int64_t first = divide(base + offsets[0], sector, sector_shift_);
    const std::int64_t last = divide(base + offsets[run - 1] + in.element_bytes - 1, sector, sector_shift_);
    for (std::int64_t s = first; s <= last; ++s) sectors_[n++] = static_cast<std::uint64_t>(s);
  }
  for (std::uint32_t m = dense ? 0 : w.mask; m != 0; m &= m - 1) {
    const std::int64_t a = wrapped(base + offsets[std::countr_zero(m)], in.addr.wrap);
    const std::int64_t last = divide(a + in.element_bytes - 1, sector, sector_shift_);
    for (std::int64_t s = divide(a, sector, sector_shift_); s <= last; ++s) {
      const auto u = static_cast<std::uint64_t>(s);
      sorted = sorted && (n == 0 || sectors_[n - 1] <= u);
      sectors_[n++] = u;
    }
  }
  if (!sorted) std::sort(sectors_, sectors_ + n);
  if (!dense) n = static_cast<int>(std::unique(sectors_, sectors_ + n) - sectors_);
  const std::uint64_t per_line = static_cast<std::uint64_t>(gpu_.memory.cache_line_bytes / sector);
  auto line_of = [&](std::uint64_t s) { return line_shift_ >= 0 ? s >> line_shift_ : s / per_line; };
  int lines = 0;
  for (int i = 0; i < n; ++i) lines += (i == 0 || line_of(sectors_[i]) != line_of(sectors_[i - 1]));
  ++r_.global_requests;
  r_.global_sectors += n;
  // The L1 tag stage takes one 128-byte line per cycle.
  const double t0 = std::max(now, sm.l1_free);
  sm.l1_free = t0 + lines;
  double done = t0 + gpu_.memory.l1_latency_cycles;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t s = sectors_[i];
    if (!store) {
      const SectorCache::Lookup l1 = sm.l1.access(s);
      if (l1.hit) {
        ++r_.l1_hits;
        done = std::max(done, std::max(t0 + gpu_.memory.l1_latency_cycles, l1.ready));
        continue;
      }
      ++r_.l1_misses;
      const double ready = [&] {
        const double t2 = std::max(t0, l2_free_);
        l2_free_ = t2 + l2_service_;
        const SectorCache::Lookup l2 = l2_.access(s);
        if (l2.hit) {
          ++r_.l2_hits;
          return std::max(t2 + gpu_.memory.l2_latency_cycles, l2.ready);
        }
        ++r_.l2_misses;
        double& ch = channel_free_[channel_of(s)];
        const double tc = std::max(t2, ch);
        ch = tc + hbm_service_;
        r_.hbm_bytes += static_cast<double>(sector);
        const double arrive = tc + gpu_.memory.hbm_latency_cycles;
        l2_.set_ready(l2.entry, arrive);
        return arrive;
      }();
      sm.l1.set_ready(l1.entry, ready);
      sm.misses.push(ready);
      done = std::max(done, ready);
    } else {
      // Stores write through L1 (no allocation) into L2, which writes every dirty sector back to HBM; the
      // write-back is charged to its channel now, as a streaming store evicts it soon anyway.
      const double t2 = std::max(t0, l2_free_);
      l2_free_ = t2 + l2_service_;
      const SectorCache::Lookup l2 = l2_.access(s);
      if (l2.hit) ++r_.l2_hits; else ++r_.l2_misses;
      double& ch = channel_free_[channel_of(s)];
      const double tc = std::max(t2, ch);
      ch = tc + hbm_service_;
      r_.hbm_bytes += static_cast<double>(sector);
      l2_.set_ready(l2.entry, t2 + gpu_.memory.l2_latency_cycles);
      end_ = std::max(end_, tc + hbm_service_);
    }
  }
  return done;
}

// Shared memory: 32 banks of 4-byte words; a warp access takes as many wavefronts as the most distinct
// words any one bank must deliver (lanes reading the same word share it: broadcast).
double Engine::shared_access(Sm& sm, const Instr& in, const Warp& w, double now) {
  const std::int64_t bank_bytes = gpu_.sm.smem_bank_bytes;
  const int banks = gpu_.sm.smem_banks;
  const int words_per_lane = in.element_bytes / gpu_.sm.smem_bank_bytes;
  const std::int64_t base = warp_address(in, w);
  const std::size_t row = static_cast<std::size_t>(memory_row_[w.pc]) * warps_per_block_ + w.warp_in_block;
  BankPattern* pattern = nullptr;
  if (in.addr.wrap == 0 && base + lowest_offset_[row] >= 0) {
    pattern = &bank_patterns_[row];
    const std::int64_t residue = ((base % bank_bytes) + bank_bytes) % bank_bytes;
    if (pattern->residue == residue && pattern->mask == w.mask) return shared_wavefronts(sm, pattern->wavefronts, now);
    pattern->residue = residue;
    pattern->mask = w.mask;
  }
  const std::int64_t* offsets = lane_offsets(w.pc, w.warp_in_block);
  int n = 0;
  bool sorted = true;
  for (std::uint32_t m = w.mask; m != 0; m &= m - 1) {
    const std::int64_t a = divide(wrapped(base + offsets[std::countr_zero(m)], in.addr.wrap), bank_bytes, bank_shift_);
    for (int k = 0; k < words_per_lane && n < 128; ++k) {
      sorted = sorted && (n == 0 || words_[n - 1] <= a + k);
      words_[n++] = a + k;
    }
  }
  if (!sorted) std::sort(words_, words_ + n);
  n = static_cast<int>(std::unique(words_, words_ + n) - words_);
  int per_bank[64] = {};
  int wavefronts = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t word = words_[i];
    const std::int64_t bank = word >= 0 && bank_mask_ >= 0 ? word & bank_mask_ : word % banks;
    wavefronts = std::max(wavefronts, ++per_bank[bank]);
  }
  if (pattern) pattern->wavefronts = wavefronts;
  return shared_wavefronts(sm, wavefronts, now);
}

double Engine::shared_wavefronts(Sm& sm, int wavefronts, double now) {
  ++r_.shared_requests;
  r_.shared_wavefronts += wavefronts;
  const double t0 = std::max(now, sm.smem_free);
  sm.smem_free = t0 + wavefronts;
  return t0 + gpu_.memory.smem_latency_cycles + wavefronts - 1;
}

void Engine::retire_warp(Sm& sm, int sm_index, int wi, double now) {
  Warp& w = sm.warps[wi];
  WarpHot& h = sm.hot[wi];
  h.live = false;
  const int sched = wi % schedulers_;
  --sm.scheds[sched].candidates;
  --sm.scheds[sched].unit_users[h.unit];
  sm.scheds[sched].summary_known = false;
  std::vector<int>& list = sm.scheds[sched].warps;
  list.erase(std::find(list.begin(), list.end(), wi));
  BlockSlot& b = sm.slots[w.slot];
  for (double t : w.reg_ready) end_ = std::max(end_, t);
  if (--b.warps_left > 0) return;
  b.live = false;
  if (--sm.live_blocks == 0) --live_sms_;
  std::int64_t next = 0;
  if (next_block_for(sm_index, next)) launch_block(sm, sm_index, w.slot, next, now + 1);
}

void Engine::issue(Sm& sm, int sm_index, int sched, int wi, double now) {
  Warp& w = sm.warps[wi];
  WarpHot& h = sm.hot[wi];
  account_wait(w, h, now, sm, sched);
  ++r_.warp_cycles[static_cast<int>(WarpState::issuing)];
  w.last_event = now + 1;
  if (w.pc >= static_cast<int>(code_.size())) {  // EXIT
    ++r_.warp_instructions;
    r_.lane_slots += 32;
    r_.active_lanes += w.active;
    if (options_.trace) record_span(sm_index, sched, InstrClass::exit, now);
    retire_warp(sm, sm_index, wi, now + 1);
    return;
  }
  const Instr& in = code_[w.pc];
  const int active = w.active;
  ++r_.warp_instructions;
  r_.lane_slots += 32;
  r_.active_lanes += active;
  if (options_.trace) record_span(sm_index, sched, in.cls, now);
  double ready = now + 1;
  const Unit u = unit_[w.pc];
  if (u != kUnitNone) {
    double& free = sm.scheds[sched].unit_free[u];
    free = std::max(free, now) + hold_[w.pc];
  }
  bool from_memory = false;
  switch (in.cls) {
    case InstrClass::int_alu: ready = now + ws_.int_latency; break;
    case InstrClass::fp32: ready = now + ws_.fp32_latency; r_.flops += 2.0 * active; break;
    case InstrClass::fp64: ready = now + ws_.fp64_latency; r_.flops += 2.0 * active; break;
    case InstrClass::sfu: ready = now + ws_.sfu_latency; break;
    case InstrClass::mma: ready = now + ws_.mma_latency; r_.flops += kMmaFlops; break;
    case InstrClass::load_global: ready = global_access(sm, in, w, now, false); from_memory = true; break;
    case InstrClass::store_global: global_access(sm, in, w, now, true); break;
    case InstrClass::load_shared: ready = shared_access(sm, in, w, now); from_memory = true; break;
    case InstrClass::store_shared: shared_access(sm, in, w, now); break;
    case InstrClass::clock:
      if (w.block == 0 && w.warp_in_block == 0 && static_cast<int>(r_.clock_reads.size()) < options_.max_clock_reads) {
        r_.clock_reads.push_back(now);
      }
      break;
    case InstrClass::barrier: {
      BlockSlot& b = sm.slots[w.slot];
      if (++b.arrived < b.warps_left) {
        h.at_barrier = true;
        --sm.scheds[sched].candidates;
        --sm.scheds[sched].unit_users[h.unit];
        sm.scheds[sched].summary_known = false;
        ++w.pc;
        return;  // advanced on release
      }
      b.arrived = 0;
      for (Scheduler& sc : sm.scheds) sc.wake = 0;
      for (int k = 0; k < warps_per_block_; ++k) {
        const int oi = w.slot * warps_per_block_ + k;
        WarpHot& oh = sm.hot[oi];
        if (!oh.live || !oh.at_barrier) continue;
        Warp& o = sm.warps[oi];
        oh.at_barrier = false;
        ++sm.scheds[oi % schedulers_].candidates;
        ++sm.scheds[oi % schedulers_].unit_users[oh.unit];
        r_.warp_cycles[static_cast<int>(WarpState::barrier)] += static_cast<std::int64_t>(now + 1 - o.last_event);
        o.last_event = now + 1;
        advance(sm, oi, now + 1);
      }
      break;
    }
    default: break;
  }
  if (in.dst >= 0) {
    w.reg_ready[in.dst] = ready;
    if (from_memory) w.reg_from_memory |= 1ull << in.dst; else w.reg_from_memory &= ~(1ull << in.dst);
  }
  ++w.pc;
  advance(sm, wi, now + 1);
}

// After an issue the scheduler is scanned again next cycle, unless every warp it could pick waits for the
// same math unit and that unit is busy past next cycle: then no warp can issue before the unit frees, and
// the scan in between would find nothing and change nothing (math warps are never throttled), so the
// scheduler may sleep until then. Returns that time, or 0 (scan next cycle).
double Engine::blocked_until(const Sm& sm, int sched, double now) const {
  const Scheduler& sc = sm.scheds[sched];
  if (sc.candidates == 0) return 0;
  for (const Unit u : {kUnitFp32, kUnitInt, kUnitMma, kUnitFp64, kUnitSfu}) {
    if (sc.unit_users[u] != sc.candidates) continue;
    const double free = sc.unit_free[u];
    return free > now + 1 ? free : 0;
  }
  return 0;
}

WarpSimResult Engine::run() {
  for (int i = 0; i < static_cast<int>(sms_.size()); ++i) {
    for (int s = 0; s < blocks_per_sm_; ++s) {
      std::int64_t b = 0;
      if (!next_block_for(i, b)) break;
      launch_block(sms_[i], i, s, b, 0);
    }
    sm_wake_[i] = sms_[i].live_blocks > 0 ? 0 : kNever;
  }
  const std::size_t miss_limit = static_cast<std::size_t>(std::max(ws_.miss_limit_per_sm, 0));
  double now = 0;
  for (;;) {
    if (live_sms_ == 0) break;
    bool issued = false;
    double next = kNever;
    for (int i = 0; i < static_cast<int>(sms_.size()); ++i) {
      // An SM none of whose schedulers is due is not visited: nothing in it can change this cycle.
      if (sm_wake_[i] > now) {
        next = std::min(next, sm_wake_[i]);
        continue;
      }
      Sm& sm = sms_[i];
      // A freed miss register needs no rescan: a warp waiting for one has the earliest release as its wake.
      sm.misses.pop_until(now);
      for (int s = 0; s < schedulers_; ++s) {
        Scheduler& sc = sm.scheds[s];
        if (sc.wake > now) continue;
        const std::vector<int>& list = sc.warps;
        const std::array<double, kUnits>& unit_free = sc.unit_free;
        // The miss registers cannot change during one scan: nothing issues until it picks.
        const bool full = sm.misses.size() >= miss_limit && !sm.misses.empty();
        const double released = full ? sm.misses.top() : 0;
        auto ready_time = [&](const WarpHot& h) {
          double t = h.ops_ready;
          if (h.unit != kUnitNone) t = std::max(t, unit_free[h.unit]);
          if (h.global_load && full) t = std::max(t, released);
          return t;
        };
        if (full && sc.summary_known) {
          // With the miss registers full a scheduler wakes at each release to find its global loads still
          // held: when no candidate is ready the scan would pick nothing, return the earliest ready time and
          // raise the throttled time of each global load whose operands are ready to `until`.
          const double until = std::max(unit_free[kUnitLsu], released);
          const double earliest = std::min(sc.other_ready, std::max(sc.global_ops_ready, until));
          if (earliest > now) {
            if (sc.global_ops_ready <= now) sc.throttle_log.add(now, until);
            sc.wake = earliest;
            continue;
          }
        }
        double sched_next = kNever;
        int pick = -1;
        const int g = sc.greedy;
        if (g >= 0 && sm.hot[g].live && !sm.hot[g].at_barrier && ready_time(sm.hot[g]) <= now) pick = g;
        if (pick < 0) {
          double global_ops_ready = kNever, other_ready = kNever;
          for (const int wi : list) {  // oldest first
            const WarpHot& h = sm.hot[wi];
            if (h.at_barrier) continue;
            const double t = ready_time(h);
            if (t <= now) {
              pick = wi;
              break;
            }
            sched_next = std::min(sched_next, t);
            if (!full) continue;  // the summary below is used only while the miss registers are full
            if (h.global_load) {
              global_ops_ready = std::min(global_ops_ready, h.ops_ready);
              if (h.ops_ready <= now) sm.hot[wi].throttled_until = std::max(h.throttled_until, t);
            } else {
              other_ready = std::min(other_ready, t);
            }
          }
          // A scan that found nothing saw every candidate: what it learnt holds until one of them changes.
          if (pick < 0 && full && sc.candidates > 0) {
            sc.global_ops_ready = global_ops_ready;
            sc.other_ready = other_ready;
            sc.summary_known = true;
          }
        }
        if (pick >= 0) {
          issue(sm, i, s, pick, now);
          sc.greedy = pick;
          sc.wake = blocked_until(sm, s, now);
          issued = true;
        } else {
          sc.wake = sched_next;
        }
      }
      double earliest = kNever;
      for (const Scheduler& sc : sm.scheds) earliest = std::min(earliest, sc.wake);
      sm_wake_[i] = sm.live_blocks > 0 ? earliest : kNever;
      next = std::min(next, sm_wake_[i]);
    }
    if (issued) {
      now += 1;
    } else {
      if (next == kNever) throw std::logic_error("kernel '" + program_.name + "': warps wait on a barrier no other warp reaches");
      now = std::max(now + 1, std::ceil(next));
    }
  }
  r_.cycles = static_cast<std::int64_t>(std::ceil(std::max(now, end_)));
  r_.time_s = static_cast<double>(r_.cycles) / r_.clock_hz;
  return r_;
}

}  // namespace

WarpSimResult simulate_kernel(const GpuSpec& gpu, const KernelProgram& program, const WarpSimOptions& options) {
  if (!gpu.warp_sim) throw std::invalid_argument("GPU '" + gpu.name + "' has no warp_sim: section in its spec");
  validate_program(program);
  Engine engine(gpu, program, options);
  return engine.run();
}

}  // namespace hpcsim

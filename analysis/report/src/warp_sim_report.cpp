#include "report/warp_sim_report.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include "configs/json_writer.h"
#include "report_format.h"

namespace hpcsim {

namespace {

using report_format::format;

const char* meaning(WarpState s) {
  switch (s) {
    case WarpState::issuing: return "issued an instruction";
    case WarpState::memory_wait: return "waited for data from L1/L2/HBM or shared memory";
    case WarpState::dependency: return "waited for an arithmetic result still in its pipeline";
    case WarpState::pipe_busy: return "waited for its unit (FP32, tensor, LSU, ...) to take another instruction";
    case WarpState::barrier: return "waited at a barrier for the rest of its block";
    case WarpState::throttled: return "could not load: every miss register of the SM was in use";
    case WarpState::not_selected: return "was ready, but its scheduler issued another warp";
  }
  return "";
}

// The unit and precision whose peak the program's math is held to.
std::pair<Precision, MathUnit> program_math(const KernelProgram& program) {
  for (const Instr& in : program.code) {
    if (in.cls == InstrClass::mma) return {in.precision, MathUnit::tensor};
  }
  for (const Instr& in : program.code) {
    if (in.cls == InstrClass::fp64) return {Precision::fp64, MathUnit::vector};
  }
  return {Precision::fp32, MathUnit::vector};
}

}  // namespace

std::string_view occupancy_limit_words(OccupancyLimiter limiter) {
  switch (limiter) {
    case OccupancyLimiter::warps: return "threads per SM";
    case OccupancyLimiter::registers: return "registers";
    case OccupancyLimiter::shared_memory: return "shared memory";
    case OccupancyLimiter::blocks: return "blocks per SM";
  }
  return "";
}

std::string explain_occupancy(const GpuSpec& gpu, const Occupancy& occ) {
  std::ostringstream o;
  o << "Occupancy: " << occ.active_blocks_per_sm << " blocks = " << occ.active_warps_per_sm << " of " << gpu.sm.max_warps
    << " warps per SM (" << format("%.0f", 100 * occ.occupancy) << " %). The limit that binds: "
    << occupancy_limit_words(occ.limiter) << " (warps allow " << occ.blocks_by_warps << " blocks, registers "
    << occ.blocks_by_registers << ", shared memory "
    << (occ.blocks_by_smem > gpu.sm.max_blocks ? std::string("any number") : std::to_string(occ.blocks_by_smem))
    << ", the block limit " << occ.blocks_by_block_limit << ").\n";
  return o.str();
}

std::string explain_warp_cycles(const WarpSimResult& r) {
  std::ostringstream o;
  std::int64_t total = 0;
  for (std::int64_t c : r.warp_cycles) total += c;
  o << "Where the resident warps' cycles went (" << total << " warp-cycles; in each, a warp\n";
  for (int s = 0; s < kWarpStateCount; ++s) {
    const double share = total > 0 ? 100.0 * r.warp_cycles[s] / total : 0;
    o << "  " << format("%5.1f", share) << " %  " << meaning(static_cast<WarpState>(s)) << "\n";
  }
  const double idle = r.lane_slots > 0 ? 100.0 * (1.0 - static_cast<double>(r.active_lanes) / r.lane_slots) : 0;
  o << "Divergence: " << format("%.1f", idle) << " % of the lanes in issued instructions were idle (masked off by a\n"
    << "  divergent branch or missing from a partial warp); their paths run one after another.\n";
  return o.str();
}

RooflinePoint roofline_point(const GpuSpec& gpu, Precision precision, MathUnit unit, double flops, double hbm_bytes) {
  RooflinePoint p;
  p.unit = std::string(to_string(precision)) + (unit == MathUnit::tensor ? " tensor" : " vector");
  p.peak_flops = gpu.peak(precision, unit);
  p.balance = p.peak_flops / gpu.memory.hbm_bandwidth;
  p.intensity = hbm_bytes > 0 ? flops / hbm_bytes : std::numeric_limits<double>::infinity();
  p.memory_bound = p.intensity < p.balance;
  p.factor = p.memory_bound ? (p.intensity > 0 ? p.balance / p.intensity : std::numeric_limits<double>::infinity())
                            : p.intensity / p.balance;
  return p;
}

std::string explain_roofline(const GpuSpec& gpu, const RooflinePoint& p, double flops, double seconds) {
  std::ostringstream o;
  o << "Roofline: the machine balance is " << format("%.3g", p.balance) << " FLOP per HBM byte (" << p.unit << " peak "
    << format("%.4g", p.peak_flops / 1e12) << " TFLOP/s over " << format("%.4g", gpu.memory.hbm_bandwidth / 1e9) << " GB/s).\n";
  const double achieved = seconds > 0 ? flops / seconds : 0;
  const std::string reached = format("%.4g", achieved / 1e12) + " TFLOP/s (" + format("%.1f", 100 * achieved / p.peak_flops) + " % of peak)";
  if (std::isinf(p.intensity)) {
    o << "  This kernel moves no HBM bytes: it is on the math side (compute-bound), at " << reached << ".\n";
  } else if (flops <= 0) {
    o << "  This kernel does no math, only moves bytes: memory-bound, so memory bandwidth bounds it.\n";
  } else {
    o << "  This kernel does " << format("%.3g", p.intensity) << " FLOP per HBM byte: "
      << (p.memory_bound ? "left of the ridge by " + format("%.3g", p.factor) + "x, so it is memory-bound: memory bandwidth bounds it"
                         : "right of the ridge by " + format("%.3g", p.factor) + "x, so it is compute-bound: math bounds it")
      << ". It reached " << reached << ".\n";
  }
  return o.str();
}

std::string explain_warp_sim(const GpuSpec& gpu, const KernelProgram& program, const WarpSimResult& r) {
  std::ostringstream o;
  const KernelLaunch& L = program.launch;
  o << "Kernel " << program.name << " on " << gpu.name << ": " << L.blocks << " blocks x " << L.threads_per_block
    << " threads, " << L.registers_per_thread << " registers/thread, " << L.smem_per_block << " B shared memory/block\n\n";
  o << explain_occupancy(gpu, r.occupancy);
  o << "Time: " << r.cycles << " cycles = " << format("%.4g", r.time_s * 1e6) << " us at " << format("%.0f", r.clock_hz / 1e6)
    << " MHz; " << (r.simulated_sms == 1 ? "one representative SM simulated, the other " + std::to_string(r.active_sms - 1) +
                                               " busy SMs by symmetry"
                                         : "all " + std::to_string(r.simulated_sms) + " SMs simulated")
    << ". " << r.warp_instructions << " warp instructions issued.\n\n";
  o << explain_warp_cycles(r) << "\n";

  o << "Memory:\n";
  if (r.global_requests > 0) {
    const double spr = static_cast<double>(r.global_sectors) / r.global_requests;
    o << "  global: " << r.global_requests << " warp requests, " << format("%.2f", spr)
      << " sectors per request (32 B each; 32 lanes x 4 B coalesced is 4, one lane per sector is 32)\n";
    const std::int64_t l1 = r.l1_hits + r.l1_misses, l2 = r.l2_hits + r.l2_misses;
    if (l1 > 0) o << "  L1 hit rate " << format("%.1f", 100.0 * r.l1_hits / l1) << " % of " << l1 << " load sectors\n";
    if (l2 > 0) o << "  L2 hit rate " << format("%.1f", 100.0 * r.l2_hits / l2) << " % of " << l2 << " sectors (loads that missed L1, and stores)\n";
    o << "  HBM: " << format("%.4g", r.kernel_hbm_bytes()) << " bytes for the kernel, "
      << format("%.4g", r.kernel_hbm_bytes() / r.time_s / 1e9) << " GB/s of " << format("%.4g", gpu.memory.hbm_bandwidth / 1e9)
      << " GB/s datasheet\n";
  }
  if (r.shared_requests > 0) {
    o << "  shared: " << r.shared_requests << " warp requests, " << format("%.2f", static_cast<double>(r.shared_wavefronts) / r.shared_requests)
      << " wavefronts per request (a wavefront is one pass over the 32 banks; with no conflict a warp needs\n"
      << "    lanes x bytes / 128 of them, 1 for 4-byte lanes; n lanes' distinct words in one bank take n)\n";
  }
  if (r.global_requests == 0 && r.shared_requests == 0) o << "  no memory instructions\n";

  const auto [precision, unit] = program_math(program);
  o << "\n" << explain_roofline(gpu, roofline_point(gpu, precision, unit, r.kernel_flops(), r.kernel_hbm_bytes()),
                                r.kernel_flops(), r.time_s);
  return o.str();
}

std::string warp_sim_trace_json(const std::string& title, const WarpSimResult& r) {
  std::ostringstream o;
  const double us_per_cycle = 1e6 / r.clock_hz;
  o << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"kernel\": " << json::quote(title);
  if (r.trace_truncated) o << ", \"truncated\": true";
  o << "}, \"traceEvents\": [\n";
  bool first = true;
  auto sep = [&] {
    o << (first ? "" : ",\n");
    first = false;
  };
  for (int sm = 0; sm < r.simulated_sms; ++sm) {
    sep();
    o << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << sm << ", \"args\": {\"name\": \"SM " << sm << "\"}}";
    for (int s = 0; s < r.schedulers; ++s) {
      sep();
      o << "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " << sm << ", \"tid\": " << s
        << ", \"args\": {\"name\": \"scheduler " << s << "\"}}";
    }
  }
  for (const IssueSpan& span : r.trace) {
    sep();
    o << "{\"name\": " << json::quote(to_string(span.cls)) << ", \"ph\": \"X\", \"pid\": " << span.sm << ", \"tid\": " << span.scheduler;
    o << ", \"ts\": " << json::fixed(static_cast<double>(span.begin) * us_per_cycle, 6);
    o << ", \"dur\": " << json::fixed(static_cast<double>(span.end - span.begin) * us_per_cycle, 6) << ", \"args\": {\"cycles\": " << (span.end - span.begin) << "}}";
  }
  o << "\n]}\n";
  return o.str();
}

}  // namespace hpcsim

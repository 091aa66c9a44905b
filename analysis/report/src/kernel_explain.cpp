#include "report/kernel_explain.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "configs/json_writer.h"
#include "models/gpu/kernel_model.h"
#include "report_format.h"

namespace hpcsim {

namespace {

constexpr int kWarpLanes = 32;

using report_format::format;

// JSON numbers: 6 significant digits; an intensity with no HBM bytes is null.
std::string num(double v) { return json::number(v, 6); }

WaveShape wave_shape(const GpuSpec& gpu, const KernelLaunch& launch, const Occupancy& occ) {
  WaveShape w;
  const std::int64_t per_wave = static_cast<std::int64_t>(occ.active_blocks_per_sm) * gpu.sm_count;
  w.waves = static_cast<double>(launch.blocks) / static_cast<double>(per_wave);
  w.full_waves = launch.blocks / per_wave;
  w.tail_blocks = launch.blocks % per_wave;
  w.tail_fill = static_cast<double>(w.tail_blocks) / static_cast<double>(per_wave);
  return w;
}

// Warp requests and the sectors they touch, as the kernel model counts them (sector_inflation), and the
// sectors the same requests would need with the lanes' elements adjacent.
void count_sectors(const GpuSpec& gpu, const KernelWork& work, KernelExplanation& e) {
  const int sector = gpu.memory.sector_bytes;
  for (int i = 0; i < work.global_count; ++i) {
    const GlobalAccess& a = work.global[i];
    const double requests = a.bytes / (kWarpLanes * a.element_bytes);
    const double per_request = kWarpLanes * a.element_bytes / static_cast<double>(sector);
    e.requests += requests;
    e.sectors += requests * per_request * sector_inflation(a.element_bytes, a.stride_elements, sector);
    e.coalesced_sectors += requests * per_request * sector_inflation(a.element_bytes, 1, sector);
  }
}

std::optional<TwinRun> run_twin(const GpuSpec& gpu, const KernelTwin& twin, std::string& why_not) {
  if (!twin.available) {
    why_not = twin.note;
    return std::nullopt;
  }
  if (!gpu.warp_sim) {
    why_not = "the " + gpu.name + " spec has no warp_sim: section, which WarpSim needs";
    return std::nullopt;
  }
  TwinRun run;
  run.program = twin.program;
  run.result = simulate_kernel(gpu, twin.program, twin.options);
  run.time_s = run.result.time_s * twin.time_scale;
  run.note = twin.note;
  return run;
}

std::string bytes_text(double b) { return format("%.4g", b / 1e6) + " MB"; }

}  // namespace

std::vector<KernelExplanation> explain_kernels(const GpuSpec& gpu, const std::vector<Kernel>& kernels,
                                               const std::vector<KernelTwin>& twins, const std::string& ops_with_twins) {
  std::vector<KernelExplanation> out;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    KernelExplanation e;
    e.kernel = kernels[i];
    const KernelLaunch& L = e.kernel.launch;
    e.time = estimate_kernel(gpu, L, e.kernel.work);  // throws for a launch the GPU cannot run
    e.occupancy = compute_occupancy(gpu.sm, LaunchResources{L.threads_per_block, L.registers_per_thread, L.smem_per_block, {}});
    e.waves = wave_shape(gpu, L, e.occupancy);
    count_sectors(gpu, e.kernel.work, e);
    e.roofline = roofline_point(gpu, e.kernel.work.precision, e.kernel.work.unit, e.kernel.work.flops, e.time.hbm_bytes);
    if (i < twins.size()) {
      e.twin = run_twin(gpu, twins[i], e.no_twin);
    } else {
      e.no_twin = "this op has no WarpSim program (" + ops_with_twins + " have one)";
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string render_kernel_explanations(const GpuSpec& gpu, const std::vector<KernelExplanation>& kernels) {
  std::ostringstream o;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelExplanation& e = kernels[i];
    const Kernel& k = e.kernel;
    const KernelLaunch& L = k.launch;
    const KernelTime& t = e.time;
    o << "\nKernel " << i + 1 << " of " << kernels.size() << ": " << k.name
      << (k.count > 1 ? " (launched " + std::to_string(k.count) + " times)" : std::string()) << " on " << gpu.name << ": "
      << L.blocks << " blocks x " << L.threads_per_block << " threads, " << L.registers_per_thread
      << " registers/thread, " << L.smem_per_block << " B shared memory/block\n\n";
    o << explain_occupancy(gpu, e.occupancy);
    const std::int64_t per_wave = static_cast<std::int64_t>(e.occupancy.active_blocks_per_sm) * gpu.sm_count;
    o << "Waves: one wave is " << e.occupancy.active_blocks_per_sm << " blocks x " << gpu.sm_count << " SMs = " << per_wave
      << " blocks, so " << L.blocks << " blocks take " << format("%.3g", e.waves.waves) << " waves: " << e.waves.full_waves
      << " full";
    if (e.waves.tail_blocks > 0) {
      o << " and a tail of " << e.waves.tail_blocks << " blocks that fills " << format("%.0f", 100 * e.waves.tail_fill)
        << " % of the GPU while it runs";
    } else {
      o << ", no tail";
    }
    o << ".\n\n";

    o << "Memory the model assumes:\n";
    if (e.requests > 0) {
      o << "  global: " << format("%.4g", e.requests) << " warp requests, " << format("%.2f", e.sectors / e.requests)
        << " sectors per request (32 B each; with the lanes' elements adjacent they would need "
        << format("%.2f", e.coalesced_sectors / e.requests) << ")\n";
    }
    o << "  L2: " << bytes_text(t.l2_bytes) << " in sectors; HBM: " << bytes_text(t.hbm_bytes)
      << " (the distinct bytes, plus re-reads when the data outgrows the " << format("%.3g", gpu.memory.l2_bytes / 1e6)
      << " MB L2)\n";
    if (t.smem_bytes > 0) o << "  shared memory: " << bytes_text(t.smem_bytes) << " of bank traffic, conflicts included\n";
    o << "\n" << explain_roofline(gpu, e.roofline, k.work.flops, t.time_s);
    o << "\nTime (analytical, one launch): " << format("%.4g", t.time_s * 1e6) << " us, bound by " << to_string(t.bound)
      << ": the slowest of math " << format("%.4g", t.compute_s * 1e6) << " us"
      << (t.special_s > 0 ? " (" + format("%.4g", t.special_s * 1e6) + " us of it the softmax's exponentials on the " +
                                std::to_string(gpu.sfu_lanes_per_sm) + " special-function lanes per SM)"
                          : std::string())
      << (t.block_s > 0 ? " (" + format("%.4g", t.block_s * 1e6) + " us of it the blocks' fixed waits, round after round on " +
                              "the busiest SM: a GEMM tile's first operands from HBM and its output store)"
                        : std::string())
      << ", memory "
      << format("%.4g", std::max({t.lsu_s, t.smem_s, t.l2_s, t.hbm_s}) * 1e6) << " us (HBM " << format("%.4g", t.hbm_s * 1e6)
      << ", L2 " << format("%.4g", t.l2_s * 1e6) << ", shared " << format("%.4g", t.smem_s * 1e6) << ", load/store issue "
      << format("%.4g", t.lsu_s * 1e6) << "), latency " << format("%.4g", t.latency_s * 1e6) << " us, launch "
      << format("%.4g", t.launch_s * 1e6) << " us.\n\n";

    if (e.twin) {
      const TwinRun& w = *e.twin;
      o << "WarpSim twin (" << w.note << "): " << w.program.launch.blocks << " blocks x " << w.program.launch.threads_per_block
        << " threads, " << format("%.4g", w.time_s * 1e6) << " us, " << format("%.3f", w.time_s / t.time_s)
        << " x the analytical time.\n";
      if (k.work.framework_pointwise) {
        o << "  (The analytical model holds a framework's pointwise kernel to the calibrated pointwise_memory share, "
          << format("%.2f", gpu.pointwise_memory_fraction) << ", of the streaming bandwidth; WarpSim streams as a plain\n"
          << "  copy does, so a ratio near that share is the calibration, not a disagreement of the two models.)\n";
      }
      o << explain_warp_cycles(w.result);
    } else {
      o << "Where warp cycles went: the analytical model has no warp cycles; the breakdown needs WarpSim, and here "
        << e.no_twin << ".\n";
    }
  }
  return o.str();
}

std::string kernel_explanations_json(const std::vector<KernelExplanation>& kernels, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::ostringstream o;
  o << "{\"kernels\": [";
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelExplanation& e = kernels[i];
    const KernelLaunch& L = e.kernel.launch;
    const Occupancy& occ = e.occupancy;
    const KernelTime& t = e.time;
    o << (i ? "," : "") << "\n" << pad << "  {\"name\": " << json::quote(e.kernel.name) << ", \"count\": " << e.kernel.count;
    o << ",\n" << pad << "   \"launch\": {\"blocks\": " << L.blocks << ", \"threads_per_block\": " << L.threads_per_block
      << ", \"registers_per_thread\": " << L.registers_per_thread << ", \"smem_per_block\": " << L.smem_per_block << "}";
    o << ",\n" << pad << "   \"occupancy\": {\"blocks_per_sm\": " << occ.active_blocks_per_sm << ", \"warps_per_sm\": "
      << occ.active_warps_per_sm << ", \"fraction\": " << num(occ.occupancy) << ", \"limiter\": "
      << json::quote(std::string(to_string(occ.limiter))) << ", \"blocks_by_warps\": " << occ.blocks_by_warps
      << ", \"blocks_by_registers\": " << occ.blocks_by_registers << ", \"blocks_by_smem\": " << occ.blocks_by_smem
      << ", \"blocks_by_block_limit\": " << occ.blocks_by_block_limit << "}";
    o << ",\n" << pad << "   \"waves\": {\"waves\": " << num(e.waves.waves) << ", \"full_waves\": " << e.waves.full_waves
      << ", \"tail_blocks\": " << e.waves.tail_blocks << ", \"tail_fill\": " << num(e.waves.tail_fill) << "}";
    o << ",\n" << pad << "   \"memory\": {\"sectors_per_request\": " << num(e.requests > 0 ? e.sectors / e.requests : 0)
      << ", \"coalesced_sectors_per_request\": " << num(e.requests > 0 ? e.coalesced_sectors / e.requests : 0)
      << ", \"l2_bytes\": " << num(t.l2_bytes) << ", \"hbm_bytes\": " << num(t.hbm_bytes) << ", \"smem_bytes\": "
      << num(t.smem_bytes) << "}";
    const RooflinePoint& r = e.roofline;
    o << ",\n" << pad << "   \"roofline\": {\"unit\": " << json::quote(r.unit) << ", \"flops\": " << num(e.kernel.work.flops)
      << ", \"intensity\": " << num(r.intensity) << ", \"machine_balance\": " << num(r.balance) << ", \"bound\": "
      << json::quote(r.memory_bound ? "memory" : "compute") << ", \"factor\": " << num(r.factor) << "}";
    o << ",\n" << pad << "   \"time\": {\"time_s\": " << num(t.time_s) << ", \"bound\": " << json::quote(std::string(to_string(t.bound)))
      << ", \"compute_s\": " << num(t.compute_s) << ", \"special_s\": " << num(t.special_s) << ", \"block_s\": " << num(t.block_s) << ", \"hbm_s\": " << num(t.hbm_s) << ", \"l2_s\": " << num(t.l2_s)
      << ", \"smem_s\": " << num(t.smem_s) << ", \"lsu_s\": " << num(t.lsu_s) << ", \"latency_s\": " << num(t.latency_s)
      << ", \"launch_s\": " << num(t.launch_s) << "}";
    o << ",\n" << pad << "   \"warp_sim\": {\"available\": " << (e.twin ? "true" : "false");
    if (e.twin) {
      const WarpSimResult& w = e.twin->result;
      std::int64_t total = 0;
      for (std::int64_t c : w.warp_cycles) total += c;
      o << ", \"program\": " << json::quote(e.twin->program.name) << ", \"note\": " << json::quote(e.twin->note)
        << ", \"time_s\": " << num(e.twin->time_s) << ", \"ratio_to_analytical\": " << num(e.twin->time_s / t.time_s)
        << ", \"warp_cycle_shares\": {";
      for (int s = 0; s < kWarpStateCount; ++s) {
        o << (s ? ", " : "") << json::quote(std::string(to_string(static_cast<WarpState>(s)))) << ": " << num(total > 0 ? static_cast<double>(w.warp_cycles[s]) / total : 0);
      }
      o << "}, \"idle_lane_fraction\": "
        << num(w.lane_slots > 0 ? 1.0 - static_cast<double>(w.active_lanes) / static_cast<double>(w.lane_slots) : 0);
    } else {
      o << ", \"reason\": " << json::quote(e.no_twin);
    }
    o << "}}";
  }
  o << "\n" << pad << "]}";
  return o.str();
}

}  // namespace hpcsim

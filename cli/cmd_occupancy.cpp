// hpcsim occupancy: theoretical occupancy of one kernel launch on a GPU spec or a bare compute capability.
#include <charconv>
#include <cmath>
#include <iostream>
#include <memory>

#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/json_writer.h"
#include "configs/units.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/occupancy.h"
#include "models/gpu/occupancy_limits.h"

namespace hpcsim::cli {

namespace {

struct OccupancyOptions {
  std::string gpu;
  std::string cc;
  int threads = 0;
  int regs = 0;
  std::string smem = "0";
  std::string format = "table";
};

int bad(const std::string& message) {
  std::cerr << "hpcsim occupancy: " << message << "\n";
  return kExitBadInput;
}

// Shortest text that reads back to the same double, so 2/3 prints as 0.6666666666666666.
std::string flag_of(LaunchField field) {
  switch (field) {
    case LaunchField::threads: return "--threads";
    case LaunchField::registers: return "--regs";
    case LaunchField::shared_memory: return "--smem";
  }
  return "--threads";
}

int run(const OccupancyOptions& o) {
  if (o.gpu.empty() == o.cc.empty()) return bad("give exactly one of --gpu NAME or --cc X.Y");
  SmLimits sm;
  if (!o.gpu.empty()) {
    try {
      const SpecCatalog catalog(config_root());
      const GpuSpec gpu = gpu_from_flag(catalog, o.gpu);
      if (gpu.compute_capability.empty()) {
        return bad("--gpu " + o.gpu + ": the CUDA occupancy rules do not apply to a " + gpu.vendor +
                   " GPU (no compute capability)");
      }
      sm = gpu.sm;
    } catch (const ConfigError& e) {
      std::cerr << e.what() << "\n";
      return kExitBadInput;
    }
  } else {
    const SmLimits* limits = sm_limits_for_cc(o.cc);
    if (limits == nullptr) {
      std::string known;
      for (const std::string& cc : supported_compute_capabilities()) known += (known.empty() ? "" : ", ") + cc;
      return bad("--cc " + o.cc + ": unsupported compute capability (supported: " + known + ")");
    }
    sm = *limits;
  }

  double smem = 0;
  try {
    smem = parse_quantity(o.smem, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    return bad("--smem " + o.smem + ": " + e.what());
  }
  if (smem < 0 || smem != std::floor(smem) || smem > 1e9) {
    return bad("--smem " + o.smem + ": must be a whole number of bytes, 0 or more");
  }

  Occupancy result;
  try {
    result = compute_occupancy(sm, {o.threads, o.regs, static_cast<int>(smem), std::nullopt});
  } catch (const InvalidLaunch& e) {
    return bad(flag_of(e.field()) + ": " + e.what());
  }

  if (o.format == "json") {
    std::cout << "{\n  \"active_blocks_per_sm\": " << result.active_blocks_per_sm
              << ",\n  \"active_warps_per_sm\": " << result.active_warps_per_sm
              << ",\n  \"occupancy\": " << json::shortest(result.occupancy) << ",\n  \"limiter\": "
              << json::quote(to_string(result.limiter)) << "\n}\n";
  } else {
    std::cout << "active_blocks_per_sm  " << result.active_blocks_per_sm << "\n"
              << "active_warps_per_sm   " << result.active_warps_per_sm << "\n"
              << "occupancy             " << json::shortest(result.occupancy) << "\n"
              << "limiter               " << to_string(result.limiter) << "\n";
  }
  return kExitOk;
}

}  // namespace

Action add_occupancy_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("occupancy", "Theoretical occupancy of a kernel launch (CUDA rules)");
  auto o = std::make_shared<OccupancyOptions>();
  cmd->add_option("--gpu", o->gpu, "GPU spec name, e.g. h100-sxm5-80gb");
  cmd->add_option("--cc", o->cc, "Compute capability instead of a GPU: 7.0, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0");
  cmd->add_option("--threads", o->threads, "Threads per block")->required();
  cmd->add_option("--regs", o->regs, "Registers per thread")->required();
  cmd->add_option("--smem", o->smem, "Shared memory per block, any size unit (49152B, 48KiB, 0)");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

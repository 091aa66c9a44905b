// hpcsim occupancy: theoretical occupancy of one kernel launch on a GPU spec or a bare compute capability
// (driver/gpu_tools.h's occupancy_of; report/gpu_tool_report.h prints it).
#include <iostream>
#include <memory>

#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "driver/gpu_tools.h"
#include "report/gpu_tool_report.h"

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

int run(const OccupancyOptions& o) {
  Occupancy result;
  try {
    result = occupancy_of(config_root(), o.gpu, o.cc, o.threads, o.regs, o.smem);
  } catch (const ToolInputError& e) {
    std::cerr << "hpcsim occupancy: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  std::cout << (o.format == "json" ? occupancy_json(result) : occupancy_table(result));
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

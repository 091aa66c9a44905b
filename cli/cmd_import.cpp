// `hpcsim import kineto|chakra TRACE`: read a profiled step and replay it (docs/traces.md).
#include <iostream>
#include <memory>

#include "commands.h"
#include "configs/config_error.h"
#include "driver/trace_import_run.h"
#include "report/report_render.h"
#include "report/trace_report.h"
#include "sim-core/execution_graph.h"
#include "sim-core/time.h"

namespace hpcsim::cli {

namespace {

struct KinetoOptions {
  KinetoImportRequest request;
  std::string format = "table";
  bool occupancy = false;
};

int run_kineto(const KinetoOptions& o) {
  try {
    const KinetoImportRun run = run_kineto_import(o.request, SpecCatalog(config_root()));
    if (!o.occupancy) {
      std::cout << render_report(run.report, o.format);
    } else {
      std::cout << (o.format == "json" ? occupancy_check_json(run.occupancy) + "\n" : occupancy_check_table(run.occupancy));
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const TimeRangeError& e) {
    std::cerr << "hpcsim import kineto: " << o.request.trace << ": " << e.what() << "\n";
  } catch (const GraphError& e) {
    std::cerr << "hpcsim import kineto: " << o.request.trace << ": " << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace

Action add_import_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("import", "Import a profiled trace (PyTorch profiler, Chakra) and replay it");
  cmd->require_subcommand(1);
  auto* kineto = cmd->add_subcommand("kineto", "Replay a PyTorch profiler (Kineto) trace: as recorded, or on another GPU");
  auto k = std::make_shared<KinetoOptions>();
  kineto->add_option("trace", k->request.trace, "Trace file (.json or .json.gz, as torch.profiler exports it)")
      ->required()
      ->check(CLI::ExistingFile);
  kineto->add_option("--device", k->request.device, "Which device's activities (default: the one with the most)");
  kineto->add_option("--gpu", k->request.gpu, "Replay on this GPU spec (configs/gpus), each kernel rescaled by its class");
  kineto->add_option("--recorded-gpu", k->request.recorded_gpu, "The GPU spec the trace was recorded on (needed with --gpu)");
  kineto->add_option("--platform", k->request.platform,
                     "Data parallelism: hpcsim YAML file with a cluster: section; the trace's NCCL collectives run on its fabric")
      ->check(CLI::ExistingFile);
  kineto->add_option("--dp", k->request.dp, "With --platform: data-parallel ranks, the first N GPUs (default: all)");
  kineto->add_flag("--occupancy", k->occupancy,
                   "Print the occupancy check instead of the report: each distinct launch's stated occupancy against hpcsim's");
  kineto->add_option("--format", k->format, "Output format (--occupancy: table or json)")->check(CLI::IsMember({"table", "json", "csv"}));
  Action chakra_action = add_chakra_import(*cmd);
  return [k, kineto, chakra_action] {
    if (kineto->parsed()) return run_kineto(*k);
    return chakra_action();
  };
}

}  // namespace hpcsim::cli

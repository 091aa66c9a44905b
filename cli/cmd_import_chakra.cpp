// `hpcsim import chakra TRACE --platform FILE`: replay a Chakra execution trace (docs/traces.md).
#include <iostream>
#include <memory>

#include "commands.h"
#include "configs/config_error.h"
#include "driver/trace_import_run.h"
#include "report/report_render.h"
#include "sim-core/execution_graph.h"
#include "sim-core/time.h"

namespace hpcsim::cli {

namespace {

struct ChakraOptions {
  ChakraImportRequest request;
  std::string format = "table";
};

int run_chakra(const ChakraOptions& o) {
  try {
    std::cout << render_report(run_chakra_import(o.request, SpecCatalog(config_root())), o.format);
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const TimeRangeError& e) {
    std::cerr << "hpcsim import chakra: " << o.request.trace << ": " << e.what() << "\n";
  } catch (const GraphError& e) {
    std::cerr << "hpcsim import chakra: " << o.request.trace << ": " << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace

Action add_chakra_import(CLI::App& import_command) {
  auto* cmd = import_command.add_subcommand("chakra", "Replay a Chakra execution trace (.et) on a cluster");
  auto o = std::make_shared<ChakraOptions>();
  cmd->add_option("trace", o->request.trace, "Chakra ET file (protobuf, .et or .et.gz): one rank's trace")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--platform", o->request.platform, "hpcsim YAML file with a cluster: section")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--ranks", o->request.ranks, "Ranks the collectives span, the first N GPUs (default: all)");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  return [o] { return run_chakra(*o); };
}

}  // namespace hpcsim::cli

// `hpcsim collective`: nccl-tests-style bandwidth of one collective over a cluster, size by size
// (driver/collective_run.h runs it, report/gpu_tool_report.h prints it).
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "commands.h"
#include "progress.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "driver/collective_run.h"
#include "models/collectives/collective_kind.h"
#include "report/gpu_tool_report.h"

namespace hpcsim::cli {

namespace {

struct CollectiveOptions : CollectiveRunOptions {
  std::string format = "table";
};

int run(CollectiveOptions& o) {
  const SpecCatalog catalog(config_root());
  Progress progress("collective", "sizes", 0, o.format);
  if (progress.enabled()) o.progress = progress.counter();
  try {
    const CollectiveRun r = [&] {
      const FinishOnExit end(progress);
      return run_collective(o, catalog);
    }();
    std::cout << (o.format == "json" ? collective_json(r.rows, r.op, r.ranks)
                                     : collective_table(r.rows, r.op, r.ranks, r.cluster));
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const CollectiveInputError& e) {
    std::cerr << "hpcsim collective: " << e.what() << "\n";
  }
  return kExitBadInput;
}

std::vector<std::string> names(std::span<const std::string_view> list) { return {list.begin(), list.end()}; }

}  // namespace

Action add_collective_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("collective", "Time a collective over a cluster, nccl-tests style");
  auto o = std::make_shared<CollectiveOptions>();
  auto* cluster = cmd->add_option("--cluster", o->cluster_file, "YAML file whose cluster: section describes the cluster")
                      ->check(CLI::ExistingFile);
  auto* node = cmd->add_option("--node", o->node, "Node spec name (configs/nodes)");
  auto* nodes = cmd->add_option("--nodes", o->nodes, "Number of nodes (default: enough for --gpus, else 1)");
  auto* network = cmd->add_option("--network", o->network, "Network spec name (configs/networks)");
  cluster->excludes(node)->excludes(nodes)->excludes(network);
  cmd->add_option("--op", o->op, "Collective")->required()->check(CLI::IsMember(names(op_names())));
  cmd->add_option("--gpus", o->gpus, "GPUs taking part, the first N in node order (default: all)");
  auto* size = cmd->add_option("--size", o->size, "Message size, e.g. 1GiB");
  auto* min = cmd->add_option("--min", o->min, "Smallest size of a sweep (sizes double up to --max)");
  auto* max = cmd->add_option("--max", o->max, "Largest size of a sweep");
  size->excludes(min)->excludes(max);
  min->needs(max);
  max->needs(min);
  cmd->add_option("--algo", o->algo, "Force an algorithm (default: the selector picks per size)")
      ->check(CLI::IsMember(names(algorithm_names())));
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

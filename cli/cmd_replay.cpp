// `hpcsim replay`: replay a SimGrid time-independent MPI trace on a platform (docs/mpi.md).
#include <iostream>
#include <memory>
#include <stdexcept>

#include "commands.h"
#include "configs/config_error.h"
#include "configs/units.h"
#include "driver/replay_run.h"
#include "sim-core/time.h"

namespace hpcsim::cli {

namespace {

struct ReplayOptions {
  ReplayRequest request;
  std::string format = "table";
  std::string eager;
};

int run(ReplayOptions& o) {
  const SpecCatalog catalog(config_root());
  try {
    if (!o.eager.empty()) {
      double v = 0;
      try {
        v = parse_quantity(o.eager, Dimension::bytes, "B");
      } catch (const UnitError& e) {
        throw ConfigError(SourceLoc{"--eager"}, e.what());
      }
      if (!(v >= 0) || v > 1e15) throw ConfigError(SourceLoc{"--eager"}, "must be 0 B .. 1 PB, got " + o.eager);
      o.request.eager_bytes = v;
    }
    const ReplayRun run = run_replay(o.request, catalog);
    std::cout << (o.format == "json" ? replay_json(run.result, run.summary) : replay_table(run.result, run.summary));
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const TimeRangeError& e) {
    std::cerr << "hpcsim replay: " << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace

Action add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("replay", "Replay a SimGrid time-independent MPI trace on a platform");
  auto o = std::make_shared<ReplayOptions>();
  cmd->add_option("trace", o->request.trace, "Trace file (<rank> <action> <args> lines) or description file (one trace per rank)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--platform", o->request.platform, "SimGrid XML platform, or hpcsim YAML with a cluster: section")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--hostfile", o->request.hostfile, "SimGrid platforms: host names (host or host:slots per line), ranks round robin")
      ->check(CLI::ExistingFile);
  cmd->add_option("--np", o->request.ranks, "Ranks (checked against the trace)");
  cmd->add_option("--ranks-per-node", o->request.ranks_per_node, "YAML clusters: ranks per node (default: its cores)");
  cmd->add_flag("--oversubscribe", o->request.oversubscribe, "YAML clusters: allow more ranks than cores on a node");
  cmd->add_option("--model", o->request.model, "Message model: smpi (SimGrid's defaults) or mpi (default: smpi on .xml, mpi on YAML)")
      ->check(CLI::IsMember({"smpi", "mpi"}));
  cmd->add_option("--collectives", o->request.selector, "Collective rules: smpi (SimGrid's default selector) or ompi (Open MPI tuned)")
      ->check(CLI::IsMember({"smpi", "ompi"}));
  cmd->add_option("--coll", o->request.coll, "Force an algorithm, OP=ALGORITHM (repeatable), e.g. allreduce=ring");
  cmd->add_option("--eager", o->eager, "The mpi model's eager threshold (default 64KiB)");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

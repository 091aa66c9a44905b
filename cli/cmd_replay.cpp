// `hpcsim replay`: replay a SimGrid time-independent MPI trace on a platform (docs/mpi.md).
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "commands.h"
#include "progress.h"
#include "configs/config_error.h"
#include "configs/units.h"
#include "driver/replay_run.h"
#include "report/replay_timeline.h"
#include "sim-core/time.h"

namespace hpcsim::cli {

namespace {

struct ReplayOptions {
  ReplayRequest request;
  std::string format = "table";
  std::string eager;
  std::string trace;  // Chrome trace-event JSON of the kept ranks' timelines
  int trace_ranks = 64;
  std::string db = "results.db";
  bool no_db = false;
};

int run(ReplayOptions& o) {
  const SpecCatalog catalog(config_root());
  if (o.trace_ranks < 1) {
    std::cerr << ConfigError(SourceLoc{"--trace-ranks"}, "must be >= 1").what() << "\n";
    return kExitBadInput;
  }
  std::ofstream trace;  // opened before the replay, so that a path that cannot be written costs none
  if (!o.trace.empty()) {
    trace.open(o.trace, std::ios::binary);
    if (!trace) {
      std::cerr << "hpcsim replay: --trace " << o.trace << ": cannot write the file\n";
      return kExitBadInput;
    }
    o.request.timeline_lanes = o.trace_ranks;
  }
  std::optional<ResultsStore> store;  // checked before the replay, so that a bad --db costs none
  if (!open_store(o.db, o.no_db, "replay", store)) return kExitBadInput;
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
    Progress progress("replay", "actions", 0, o.format);
    if (progress.enabled()) o.request.progress = progress.counter();
    const ReplayRun run = [&] {
      const FinishOnExit end(progress);
      return run_replay(o.request, catalog);
    }();
    std::cout << (o.format == "json" ? replay_json(run.result, run.summary) : replay_table(run.result, run.summary));
    if (trace.is_open()) {
      trace << replay_trace_json(run.result, run.summary);
      trace.close();
      if (!trace) {
        std::cerr << "hpcsim replay: --trace " << o.trace << ": writing the file failed\n";
        return kExitFailure;
      }
      if (run.result.timeline_dropped > 0)
        std::cerr << "note: --trace keeps the first " << run.result.timeline.size() << " segments; "
                  << run.result.timeline_dropped << " later ones are left out (fewer --trace-ranks keep more of each)\n";
    }
    return store_record(store, run.record, "replay");
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
  cmd->add_option("--trace", o->trace, "Write the ranks' timelines (compute, communication, waiting) as Chrome trace-event JSON (Perfetto)");
  cmd->add_option("--trace-ranks", o->trace_ranks, "With --trace: lanes kept, ranks evenly spread from the first to the last (default 64)")
      ->needs(cmd->get_option("--trace"));
  cmd->add_flag("--critical-path", o->request.critical_path,
                "Follow the critical path (the chain of activities and messages that ends last) and report its parts");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_flag("--no-db", o->no_db, "Do not store the run");
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

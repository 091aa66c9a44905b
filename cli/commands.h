#pragma once
// Each `hpcsim` subcommand registers its options on the app and returns the action to run.
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/results_store.h"
#include "configs/catalog.h"
#include "driver/scenario_run.h"
#include "driver/gpu_tools.h"  // gpu_from_flag

namespace hpcsim::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;     // the simulation, or a write to the store, failed
inline constexpr int kExitBadInput = 2;    // a bad flag, file, spec, scenario or results store

// The exit code for a store that failed while in use: bad input when SQLite found it damaged.
inline int store_failure_exit(const StoreError& e) {
  return dynamic_cast<const StoreDamaged*>(&e) ? kExitBadInput : kExitFailure;
}

using Action = std::function<int()>;

Action add_run_command(CLI::App& app);
Action add_list_command(CLI::App& app);
Action add_show_command(CLI::App& app);
Action add_version_command(CLI::App& app);
Action add_kernel_command(CLI::App& app);
Action add_collective_command(CLI::App& app);
Action add_io_command(CLI::App& app);
Action add_occupancy_command(CLI::App& app);
Action add_validate_command(CLI::App& app);
Action add_schedule_command(CLI::App& app);
Action add_campaign_command(CLI::App& app);
Action add_sweep_command(CLI::App& app);
Action add_schema_command(CLI::App& app);
Action add_report_command(CLI::App& app);
Action add_plan_command(CLI::App& app);
Action add_serve_command(CLI::App& app);

// A serve scenario run (cmd_serve.cpp), shared by `hpcsim serve` and `hpcsim run` on a kind: serve file.
// sweep_load / target_p99 / max_rate_within empty: the scenario as its file says.
int run_serve_file(const std::string& scenario_file, const std::vector<std::string>& overrides, const std::string& db,
                   bool no_db, const std::string& format, const std::string& sweep_load, const std::string& target_p99,
                   int max_replicas, const std::string& max_rate_within, const std::string& command);
// The same for a serve scenario already loaded (`hpcsim run` on a kind: serve file), with its request.
int run_loaded_serve(const LoadedScenario& loaded, const ScenarioRequest& request, const std::string& db, bool no_db,
                     const std::string& format, const std::string& command);
Action add_microbench_command(CLI::App& app);
Action add_replay_command(CLI::App& app);
Action add_import_command(CLI::App& app);
// `hpcsim import chakra` (cmd_import_chakra.cpp), registered on the import command; without protobuf at
// build time it registers nothing and its action is never run.
Action add_chakra_import(CLI::App& import_command);

// The --db store of a command that stores, opened and checked before anything is simulated (--no-db: none).
// False when it is unusable (not an hpcsim store, too new, unreadable, read-only, a folder): the reason is
// printed as "hpcsim COMMAND: FILE: ..." and the command exits kExitBadInput, having simulated nothing.
bool open_store(const std::string& db, bool no_db, const std::string& command, std::optional<ResultsStore>& store);

// Stores a run in the store open_store opened (none: nothing to do); a failed write is printed as
// "hpcsim COMMAND: ..." and gives kExitFailure.
int store_record(std::optional<ResultsStore>& store, const RunRecord& record, const std::string& command);

// The folder of shipped specs: $HPCSIM_CONFIG_DIR, else the source tree's configs/.
std::string config_root();

}  // namespace hpcsim::cli

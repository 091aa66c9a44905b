// hpcsim: the command-line entry point. Wiring only; the work happens in the layers below.
#include <new>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "configs/count_limits.h"

int main(int argc, char** argv) {
  using namespace hpcsim::cli;
  CLI::App app{"hpcsim: a discrete-event simulator of HPC clusters and GPUs"};
  app.require_subcommand(1);
  std::map<const CLI::App*, Action> actions;
  auto add = [&](Action (*adder)(CLI::App&)) {
    const std::size_t before = app.get_subcommands({}).size();
    Action action = adder(app);
    actions[app.get_subcommands({})[before]] = std::move(action);
  };
  add(add_run_command);
  add(add_list_command);
  add(add_show_command);
  add(add_version_command);
  add(add_kernel_command);
  add(add_collective_command);
  add(add_io_command);
  add(add_occupancy_command);
  add(add_validate_command);
  add(add_schedule_command);
  add(add_campaign_command);
  add(add_sweep_command);
  add(add_schema_command);
  add(add_report_command);
  add(add_plan_command);
  add(add_serve_command);
  add(add_microbench_command);
  add(add_replay_command);
  add(add_import_command);
  // --limit NAME=N on every command: the one way to raise a count limit (configs/count_limits.h).
  const CLI::Validator set_limit(
      [](std::string& text) -> std::string {
        try {
          hpcsim::set_count_limit(text);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return "";
      },
      "NAME=N");
  std::vector<std::string> limits;  // applied by the validator as each is read
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->add_option("--limit", limits, "Raise (or lower) a count limit for this run, e.g. --limit gpus=1048576; repeatable "
                               "(docs/limits.md lists them)")
        ->check(set_limit);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message naming the flag
    return kExitBadInput;
  }
  try {
    for (const CLI::App* sub : app.get_subcommands()) return actions.at(sub)();
  } catch (const std::bad_alloc&) {
    // The default limits keep a run within 1-2 GiB (docs/limits.md); one raised past what this machine holds
    // ends here, refused with the reason rather than reported as a fault (`io --readers 2000000000 --limit
    // readers=10000000000` asked for 56 GB).
    std::cerr << "hpcsim: out of memory: the run needs more memory than this machine gives it; smaller sizes, or "
                 "the --limit defaults (docs/limits.md), keep it within reach\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    // Bad input is reported by each command; anything reaching here is a fault in hpcsim itself.
    std::cerr << "hpcsim: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitBadInput;
}

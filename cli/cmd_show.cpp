#include <filesystem>
#include <iostream>
#include <memory>

#include "store/results_store.h"
#include "report/show_results.h"
#include "commands.h"

namespace hpcsim::cli {

Action add_show_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "List the runs and metrics stored in a results database");
  auto db = std::make_shared<std::string>();
  cmd->add_option("database", *db, "SQLite results file, e.g. results.db")->required();
  return [db] {
    // Showing must not create an empty database where the user mistyped a name.
    if (!std::filesystem::exists(*db)) {
      std::cerr << "hpcsim show: " << *db << ": no such file\n";
      return kExitBadInput;
    }
    try {
      const ResultsStore store(*db);
      std::cout << format_runs_table(store);
      return kExitOk;
    } catch (const StoreError& e) {
      std::cerr << "hpcsim show: " << e.what() << "\n";
      return kExitBadInput;
    }
  };
}

}  // namespace hpcsim::cli

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
    try {
      const ResultsStore store(*db, StoreAccess::read);  // never creates nor initialises a file
      std::cout << format_runs_table(store);
      return kExitOk;
    } catch (const StoreError& e) {
      std::cerr << "hpcsim show: " << e.what() << "\n";
      return kExitBadInput;
    }
  };
}

}  // namespace hpcsim::cli

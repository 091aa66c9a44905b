#include <iostream>

#include "commands.h"

namespace hpcsim::cli {

Action add_version_command(CLI::App& app) {
  app.add_subcommand("version", "Print the hpcsim version");
  return [] {
    std::cout << "hpcsim " << HPCSIM_VERSION << "\n";
    return kExitOk;
  };
}

}  // namespace hpcsim::cli

#include <iostream>
#include <memory>

#include "commands.h"
#include "configs/catalog.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim::cli {

Action add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List the known GPUs, nodes, networks, storage systems, file systems, datasets, sequence-length distributions, frameworks, serving front ends and models");
  auto kind = std::make_shared<std::string>("all");
  cmd->add_option("kind", *kind, "What to list")->check(CLI::IsMember({"all", "gpus", "nodes", "networks", "storage", "filesystems", "datasets", "sequence-lengths", "frameworks", "frontends", "models"}));
  return [kind] {
    const SpecCatalog catalog(config_root());
    const std::vector<std::string> kinds = *kind == "all" ? std::vector<std::string>{"gpus", "nodes", "networks", "storage", "filesystems", "datasets", "sequence-lengths", "frameworks", "frontends", "models"}
                                                          : std::vector<std::string>{*kind};
    for (const std::string& k : kinds) {
      std::cout << k << ":";
      // Models: the zoo's built-in builders and the model YAML files, in one sorted list.
      auto names = k == "models" ? zoo_names(catalog.root()) : catalog.names(k);
      if (names.empty()) std::cout << " (none)";
      std::cout << "\n";
      for (const std::string& n : names) std::cout << "  " << n << "\n";
    }
    return kExitOk;
  };
}

}  // namespace hpcsim::cli

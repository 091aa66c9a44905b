// `hpcsim validate [DIR]`: every case of the validation set predicted and compared with its measurement.
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "analysis/validation.h"
#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"

namespace hpcsim::cli {

namespace {

struct ValidateOptions {
  std::string dir;  // empty: <config root>/validation
  std::string format = "table";
};

int run(const ValidateOptions& o) {
  const SpecCatalog catalog(config_root());
  const std::filesystem::path dir = o.dir.empty() ? catalog.root() / "validation" : std::filesystem::path(o.dir);
  try {
    const ValidationReport report = run_validation(dir, catalog);
    const ValidationFormat format = o.format == "csv"        ? ValidationFormat::csv
                                    : o.format == "markdown" ? ValidationFormat::markdown
                                                             : ValidationFormat::table;
    std::cout << render_validation(report, format);
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const std::runtime_error& e) {
    std::cerr << "hpcsim validate: " << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Predict every published measurement of a validation set and compare");
  auto o = std::make_shared<ValidateOptions>();
  cmd->add_option("dir", o->dir, "Folder of validation cases (default: configs/validation under the config root)");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "csv", "markdown"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli

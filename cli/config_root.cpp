// Where the shipped specs are.
#include "configs/catalog.h"
#include "commands.h"

namespace hpcsim::cli {

std::string config_root() { return SpecCatalog::resolve_root(HPCSIM_DEFAULT_CONFIG_DIR).string(); }

}  // namespace hpcsim::cli

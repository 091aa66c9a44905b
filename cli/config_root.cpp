// Where the shipped specs are, and the GPU spec a --gpu flag names.
#include "configs/catalog.h"
#include "commands.h"
#include "configs/config_node.h"

namespace hpcsim::cli {

std::string config_root() { return SpecCatalog::resolve_root(HPCSIM_DEFAULT_CONFIG_DIR).string(); }

GpuSpec gpu_from_flag(const SpecCatalog& catalog, const std::string& name) {
  const ConfigNode node = ConfigNode::make_scalar(name, SourceLoc{"--gpu " + name});
  return parse_gpu_spec(catalog.load("gpus", node, "GPU"), name);
}

}  // namespace hpcsim::cli

#pragma once
// The shipped spec library: <root>/<kind>/<name>.yaml, e.g. configs/gpus/a100-sxm4-80gb.yaml.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "configs/config_node.h"

namespace hpcsim {

class SpecCatalog {
 public:
  explicit SpecCatalog(std::filesystem::path root);

  // The folder named by $HPCSIM_CONFIG_DIR when set, else `built_in` (the source tree's configs/).
  static std::filesystem::path resolve_root(const std::filesystem::path& built_in);

  const std::filesystem::path& root() const { return root_; }
  // Spec names of one kind ("gpus", "nodes", "networks", "models", ...), sorted.
  std::vector<std::string> names(std::string_view kind) const;
  // Loads a named spec (with extends). An unknown name is a ConfigError at `where` listing the known
  // names and the closest one; `what` says what was asked for, e.g. "GPU".
  ConfigNode load(std::string_view kind, const ConfigNode& name_node, std::string_view what) const;

 private:
  std::filesystem::path root_;
};

}  // namespace hpcsim

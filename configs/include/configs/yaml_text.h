#pragma once

#include <string>

#include "configs/config_node.h"

namespace hpcsim {

// Block-style YAML for a resolved tree, keys in their stored order. The same tree
// always gives the same text, so it can be stored and hashed.
std::string to_yaml_text(const ConfigNode& root);

}  // namespace hpcsim

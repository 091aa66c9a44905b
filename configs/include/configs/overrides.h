#pragma once

#include <string_view>

#include "configs/config_node.h"

namespace hpcsim {

// Applies "a.b.c=value": sets a (possibly new) nested key. The value is parsed as a
// YAML scalar or flow collection, so "x=[1,2]" sets a list. A numeric path segment
// indexes into an existing list. Errors read "--set <flag>: message".
void apply_override(ConfigNode& root, std::string_view flag);

}  // namespace hpcsim
